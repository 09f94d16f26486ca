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
  ["ff00::", 8, "multicast"],
  ["64:ff9b::", 96, "NAT64"],
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

/** Why `address` may not be a webhook destination ("loopback", …), or undefined when it may. */
export function blockedReason(address: string): string | undefined {
  const family = net.isIP(address);
  if (family === 4) return V4.find((r) => r.list.check(address, "ipv4"))?.label;
  if (family !== 6) return "not an IP address";
  // IPv4-mapped (::ffff:127.0.0.1) and IPv4-compatible forms are judged as the IPv4 inside.
  const mapped = /^(?:::ffff:|::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return blockedReason(mapped[1]);
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hexMapped?.[1] && hexMapped[2]) {
    const hi = Number.parseInt(hexMapped[1], 16);
    const lo = Number.parseInt(hexMapped[2], 16);
    return blockedReason(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  return V6.find((r) => r.list.check(address, "ipv6"))?.label;
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

/** The refusal for an IP-literal host (sockets skip `lookup` for those), or undefined. */
export function checkLiteralHost(hostname: string): BlockedAddressError | undefined {
  const host = hostname.replace(/^\[|\]$/g, "");
  if (!net.isIP(host)) return undefined;
  const reason = blockedReason(host);
  return reason ? new BlockedAddressError(host, host, reason) : undefined;
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
