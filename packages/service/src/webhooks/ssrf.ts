/**
 * The SSRF guard: webhook destinations are merchant-controlled URLs, so svc must not be turned
 * into a proxy to its own network. Addresses are checked where the connection is made — on the
 * resolved DNS answers (a custom `lookup` for the socket) and on IP literals — so a hostname
 * that resolves to a public address when saved and to 127.0.0.1 later (DNS rebinding) is
 * still refused. SVC_WEBHOOK_ALLOW_PRIVATE=true turns the guard off (development, tests).
 */
import dns from "node:dns";
import net from "node:net";

const blockedV4: [string, number, string][] = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "CGNAT"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];
const blockedV6: [string, number, string][] = [
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["fc00::", 7, "unique-local"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "site-local"],
  ["ff00::", 8, "multicast"],
  // Local-use NAT64 (RFC 8215): its IPv4 may sit anywhere in the address, so none is trusted.
  ["64:ff9b:1::", 48, "local-use NAT64"],
];

function lists(entries: [string, number, string][], family: "ipv4" | "ipv6") {
  return entries.map(([address, prefix, label]) => {
    const list = new net.BlockList();
    list.addSubnet(address, prefix, family);
    return { list, label };
  });
}
const V4 = lists(blockedV4, "ipv4");
const V6 = lists(blockedV6, "ipv6");

/** The 16 bytes of an IPv6 address (any spelling: `::` compression, a dotted IPv4 tail, a zone). */
export function ipv6Bytes(address: string): Uint8Array | undefined {
  let text = address.replace(/^\[|\]$/g, "").split("%")[0]!;
  if (net.isIP(text) !== 6) return undefined;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  if (groups.length !== 8) return undefined;
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    bytes[2 * i] = value >> 8;
    bytes[2 * i + 1] = value & 255;
  });
  return bytes;
}

const startsWith = (bytes: Uint8Array, prefix: number[]) => prefix.every((value, i) => bytes[i] === value);
const dottedQuad = (b: ArrayLike<number>) => `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
const zeros = (n: number) => Array<number>(n).fill(0);

/**
 * The IPv4 addresses an IPv6 address carries, which a packet to it reaches: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, so `::127.0.0.1` = `::7f00:1`), IPv4-translated
 * (`::ffff:0:a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`), 6to4 (`2002:AABB:CCDD::`) and Teredo
 * (`2001:0::`, the client's address inverted in the last 32 bits, and the server's).
 */
export function embeddedIpv4(bytes: Uint8Array): string[] {
  const last = bytes.subarray(12, 16);
  if (startsWith(bytes, [...zeros(10), 0xff, 0xff])) return [dottedQuad(last)];
  if (startsWith(bytes, [...zeros(8), 0xff, 0xff, 0, 0])) return [dottedQuad(last)];
  // ::/96, but not :: and ::1 themselves (judged as IPv6 below).
  if (startsWith(bytes, zeros(12)) && !(startsWith(bytes, zeros(15)) && (bytes[15] ?? 0) <= 1))
    return [dottedQuad(last)];
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, ...zeros(8)])) return [dottedQuad(last)];
  if (startsWith(bytes, [0x20, 0x02])) return [dottedQuad(bytes.subarray(2, 6))];
  if (startsWith(bytes, [0x20, 0x01, 0, 0]))
    return [dottedQuad(bytes.subarray(4, 8)), dottedQuad(Array.from(last, (b) => b ^ 0xff))];
  return [];
}

/** Why `address` may not be a webhook destination ("loopback", …), or undefined when it may. */
export function blockedReason(address: string): string | undefined {
  const family = net.isIP(address);
  if (family === 4) return V4.find((r) => r.list.check(address, "ipv4"))?.label;
  const bytes = ipv6Bytes(address);
  if (!bytes) return "not an IP address";
  // An IPv6 spelling of an IPv4 address is judged as the IPv4 inside.
  for (const v4 of embeddedIpv4(bytes)) {
    const reason = blockedReason(v4);
    if (reason) return reason;
  }
  const canonical = Array.from({ length: 8 }, (_, i) =>
    (((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0)).toString(16),
  ).join(":");
  return V6.find((r) => r.list.check(canonical, "ipv6"))?.label;
}

export class BlockedAddressError extends Error {
  readonly code = "ERR_SVC_BLOCKED_ADDRESS";
  constructor(host: string, address: string, reason: string) {
    super(
      `refused to connect to ${host} (${address}): ${reason} addresses are not allowed as webhook destinations (operators can set SVC_WEBHOOK_ALLOW_PRIVATE=true for development)`,
    );
    this.name = "BlockedAddressError";
  }
}

/** An IP-literal host (a URL's hostname, brackets and all) in a blocked range: the address and why. */
export function blockedLiteral(hostname: string): { host: string; reason: string } | undefined {
  const host = hostname.replace(/^\[|\]$/g, "");
  if (!net.isIP(host)) return undefined;
  const reason = blockedReason(host);
  return reason ? { host, reason } : undefined;
}

/** The refusal for an IP-literal host (sockets skip `lookup` for those), or undefined. */
export function checkLiteralHost(hostname: string): BlockedAddressError | undefined {
  const blocked = blockedLiteral(hostname);
  return blocked && new BlockedAddressError(blocked.host, blocked.host, blocked.reason);
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/** DNS resolution of every address of a name: `dns.lookup` by default; tests resolve names without DNS. */
export type ResolveAll = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

/** A `lookup` for net.connect that resolves with `resolve` and refuses blocked answers. */
export function createGuardedLookup(resolve: ResolveAll = dns.lookup) {
  return function guardedLookup(
    hostname: string,
    options: dns.LookupOptions,
    callback: LookupCallback,
  ): void {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      for (const a of addresses) {
        const reason = blockedReason(a.address);
        if (reason) return callback(new BlockedAddressError(hostname, a.address, reason), []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first)
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), []);
      callback(null, first.address, first.family);
    });
  };
}
