// Lint: ESLint with typescript-eslint's recommended rules; formatting is Prettier's
// (`npm run format`). Both are plain JavaScript packages, so `npm ci` installs them anywhere.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "**/dist/**",
      "**/node_modules/**",
      ".svc/**",
      "bench/results/**",
      "coverage/**",
      // generated from the OpenAPI document (packages/node/scripts/generate.ts)
      "packages/node/src/schema.ts",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      "@typescript-eslint/no-explicit-any": "warn",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
      "no-control-regex": "off",
    },
  },
);
