/**
 * A tripwire for SSRF tests: while installed, every `net.Socket#connect` of this process is
 * recorded, and none may reach an address outside loopback. A connect to a non-loopback IP
 * literal is destroyed before it starts, and a name whose lookup answers a non-loopback address
 * gets an error instead of that address. Either is recorded as a violation, so a guard that let
 * a private address through fails the test without a packet leaving the machine.
 */
import dns from "node:dns";
import net from "node:net";

export interface EgressTripwire {
  /** The host of every socket connect since install (IP literal or name), in order. */
  connects: string[];
  /** Non-loopback addresses something tried to connect to (must stay empty). */
  violations: string[];
  restore(): void;
}

function isLoopback(address: string): boolean {
  if (net.isIPv4(address)) return address.startsWith("127.");
  const v6 = address.toLowerCase();
  return v6 === "::1" || /^::ffff:127\.\d+\.\d+\.\d+$/.test(v6) || /^::ffff:7f[0-9a-f]{2}:/.test(v6);
}

type Lookup = (hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => void;

/** Wraps a socket's `lookup` so that a non-loopback answer becomes an error. */
function checkedLookup(lookup: Lookup, violations: string[]): Lookup {
  return (hostname, options, callback) =>
    lookup(hostname, options, (err: unknown, address: unknown, family: unknown) => {
      if (err) return callback(err, address, family);
      const answers = Array.isArray(address)
        ? (address as dns.LookupAddress[]).map((a) => a.address)
        : [address as string];
      const outside = answers.filter((a) => !isLoopback(a));
      if (outside.length === 0) return callback(null, address, family);
      violations.push(...outside.map((a) => `${hostname} → ${a}`));
      callback(
        Object.assign(new Error(`tripwire: ${hostname} resolved outside loopback`), { code: "EPERM" }),
      );
    });
}

export function installEgressTripwire(): EgressTripwire {
  const original = net.Socket.prototype.connect;
  const connects: string[] = [];
  const violations: string[] = [];
  // net.connect passes its normalised arguments as one array ([options, callback]).
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
    if (first && typeof first === "object" && "port" in first) {
      const options = first as { host?: string; lookup?: Lookup };
      const host = options.host ?? "localhost";
      connects.push(host);
      if (net.isIP(host) && !isLoopback(host)) {
        violations.push(host);
        process.nextTick(() => this.destroy(new Error(`tripwire: connect to ${host} refused`)));
        return this;
      }
      if (!net.isIP(host))
        options.lookup = checkedLookup(options.lookup ?? (dns.lookup as unknown as Lookup), violations);
    }
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof original;
  return {
    connects,
    violations,
    restore: () => {
      net.Socket.prototype.connect = original;
    },
  };
}
