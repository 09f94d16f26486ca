// The package as an app installs it: @svc/checkout-react-native and @svc/checkout-core packed,
// installed into a fresh TypeScript project (React Native's and React's own type definitions from
// this repository, no download), where a typical integration type-checks and a wrong one does not.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const pkgDir = path.resolve(import.meta.dirname, "..");
const repoRoot = path.resolve(pkgDir, "../..");
const tsc = path.join(repoRoot, "node_modules/typescript/bin/tsc");
let work: string;
let project: string;

const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });

/** The path of a package as this repository resolves it from the React Native package. */
const installed = (name: string) =>
  path.dirname(require.resolve(`${name}/package.json`, { paths: [pkgDir] }));

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "svc-rn-tarball-"));
  run(process.execPath, [tsc, "-p", "tsconfig.build.json"], path.join(repoRoot, "packages/checkout-core"));
  run(process.execPath, [tsc, "-p", "tsconfig.build.json"], pkgDir);
  run("npm", ["pack", "--pack-destination", work], pkgDir);
  run("npm", ["pack", "--pack-destination", work], path.join(repoRoot, "packages/checkout-core"));
  const tarballs = (await readdir(work)).filter((f) => f.endsWith(".tgz")).map((f) => path.join(work, f));
  project = path.join(work, "app");
  await mkdir(project);
  await writeFile(path.join(project, "package.json"), JSON.stringify({ name: "app", private: true }));
  await writeFile(
    path.join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        jsx: "react-jsx",
        strict: true,
        noEmit: true,
        lib: ["ES2023"],
        types: [],
      },
      include: ["app.tsx"],
    }),
  );
  // The peers (react, react-native and React's types) are the app's own: linked from here.
  run(
    "npm",
    [
      "install",
      ...tarballs,
      "--offline",
      "--legacy-peer-deps",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
    ],
    project,
  );
  await mkdir(path.join(project, "node_modules/@types"), { recursive: true });
  for (const name of ["react", "react-native", "@types/react"])
    await symlink(installed(name), path.join(project, "node_modules", name));
}, 180_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("the packed @svc/checkout-react-native", { timeout: 120_000 }, () => {
  it("ships dist only and depends on @svc/checkout-core alone; react and react-native are peers", async () => {
    const manifest = JSON.parse(
      run("npm", ["pkg", "get"], path.join(project, "node_modules/@svc/checkout-react-native")),
    );
    expect(Object.keys(manifest.dependencies)).toEqual(["@svc/checkout-core"]);
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(["react", "react-native"]);
    const files = await readdir(path.join(project, "node_modules/@svc/checkout-react-native"));
    expect(files.sort()).toEqual(["README.md", "dist", "package.json"]);
  });

  it("type-checks a screen with the seed's interface and the component; refuses a wrong option and a wrong callback", async () => {
    await writeFile(
      path.join(project, "app.tsx"),
      `import { View } from "react-native";
import {
  ButtonComponent, Checkout, CheckoutTheme, LabelComponent, SvcCheckoutView,
  type SuccessCallbackData, type SvcDelegate, type WalletBridge,
} from "@svc/checkout-react-native";

const delegate: SvcDelegate = {
  successCallback: (data: SuccessCallbackData) => console.log(data.session_id, data.payment_gateway_info?.pg_name),
  cancelCallback: (data) => console.log(data.status),
  errorCallback: (data) => console.log(data.message),
};
const bridge: WalletBridge = {
  canMakePayments: () => true,
  canMakePaymentsWithActiveCard: async () => true,
  openPaymentSetup: async () => true,
  requestPaymentToken: async (request) => (request.amount ? "token" : null),
};
const theme = new CheckoutTheme({
  backgroundColor: { light: "#fff", dark: "#000" },
  mainTitle: new LabelComponent({ color: "#0a7d38" }),
  button: new ButtonComponent({ enabledBackgroundColor: "#0a7d38", enabledTitleColor: "#fff" }),
});
const checkout = new Checkout({ merchantId: "shop.example.com", apiKey: "pk_x", sessionId: "sess_x", delegate, theme, walletBridge: bridge, formsOfPayment: ["walletBPay", "svcPG"] });

export function PayScreen() {
  return <View style={{ flex: 1 }}>{checkout.paymentView()}</View>;
}
export function PayScreen2({ sessionId }: { sessionId: string }) {
  return <SvcCheckoutView merchantId="shop.example.com" apiKey="pk_x" sessionId={sessionId} delegate={delegate} locale="ar-KW" appearance="dark" />;
}
`,
    );
    run(process.execPath, [tsc, "-p", "."], project);

    await writeFile(
      path.join(project, "app.tsx"),
      `import { Checkout } from "@svc/checkout-react-native";
new Checkout({ merchantId: "shop.example.com", apiKey: "pk_x", sessionId: "s", formsOfPayment: ["applePay"],
  delegate: { successCallback: (d: { nope: number }) => d, cancelCallback() {}, errorCallback() {} } });
`,
    );
    let errors = "";
    try {
      run(process.execPath, [tsc, "-p", "."], project);
    } catch (e) {
      errors = String((e as { stdout?: string }).stdout);
    }
    expect(errors).toMatch(/"applePay"/);
    expect(errors).toMatch(/nope/);
  });
});
