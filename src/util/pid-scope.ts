import { readFileSync, readlinkSync } from 'node:fs';

/**
 * Where a pid names one process: the machine in its current boot (its kernel's boot id, shared by
 * every container on it whatever their hostnames) and the pid namespace (each container has its own,
 * where the first process is pid 1). Linux tells both through /proc; elsewhere, or where /proc is
 * hidden, they are unknown and left out.
 */
export interface PidScope {
  boot_id?: string;
  pid_namespace?: string;
}

let scope: PidScope | undefined;

/** This process's scope, read once: a process never changes its boot or its own pid namespace. */
export function pidScope(): PidScope {
  scope ??= {
    ...known('boot_id', () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()),
    ...known('pid_namespace', () => readlinkSync('/proc/self/ns/pid')),
  };
  return scope;
}

function known<K extends keyof PidScope>(key: K, read: () => string): PidScope {
  try {
    const value = read();
    return value === '' ? {} : { [key]: value };
  } catch {
    return {};
  }
}
