/**
 * Which process owns a loopback TCP connection (Linux /proc): lets a receiver in the test process
 * tell which of several service processes an HTTP request came from.
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
    for (const pid of pidsOfGroup(pgid)) {
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) {
        try {
          if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return label;
        } catch {
          // Closed meanwhile.
        }
      }
    }
  }
  return undefined;
}
