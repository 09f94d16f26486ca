/**
 * Which process owns a loopback TCP connection (Linux /proc): lets a receiver in the test process
 * tell which of several service processes an HTTP request came from, and a connection-hygiene
 * test tell whether the service still holds a descriptor of a socket it should have closed.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** The pids of the processes in process group `pgid`. */
export function pidsOfGroup(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so parse after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid) pids.push(Number(entry));
    } catch {
      // The process exited meanwhile.
    }
  }
  return pids;
}

/** The socket inode of the IPv4 connection 127.0.0.1:localPort → 127.0.0.1:remotePort, if open. */
function socketInode(localPort: number, remotePort: number): string | undefined {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, "0");
  const local = `0100007F:${hex(localPort)}`;
  const remote = `0100007F:${hex(remotePort)}`;
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols[1] === local && cols[2] === remote) return cols[9];
  }
  return undefined;
}

/** Whether process `pid` has a descriptor open on the socket `target` ("socket:[inode]"). */
function pidHolds(pid: number, target: string): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return true;
    } catch {
      // Closed meanwhile.
    }
  }
  return false;
}

/**
 * The key of `groups` (label → process group id) whose process holds the client end of the
 * connection from 127.0.0.1:clientPort to 127.0.0.1:serverPort, or undefined when none does.
 */
export function connectionOwner(
  clientPort: number,
  serverPort: number,
  groups: Record<string, number>,
): string | undefined {
  const inode = socketInode(clientPort, serverPort);
  if (!inode) return undefined;
  const target = `socket:[${inode}]`;
  for (const [label, pgid] of Object.entries(groups)) {
    for (const pid of pidsOfGroup(pgid)) if (pidHolds(pid, target)) return label;
  }
  return undefined;
}

/**
 * Whether process `pid` (default: this one) still holds a file descriptor of the server end of
 * the loopback connection from 127.0.0.1:clientPort to 127.0.0.1:serverPort: what a socket the
 * server never closes costs it. A socket the server closed may linger in the kernel (FIN-WAIT-2)
 * but belongs to no descriptor.
 */
export function serverHolds(serverPort: number, clientPort: number, pid = process.pid): boolean {
  const inode = socketInode(serverPort, clientPort);
  // Inode 0: the kernel keeps the closed socket a while but no process owns it any more.
  return inode !== undefined && inode !== "0" && pidHolds(pid, `socket:[${inode}]`);
}
