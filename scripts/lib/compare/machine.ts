/** What the report says about the machine a comparison ran on. */
import { spawnSync } from 'node:child_process';
import { availableParallelism, cpus, hostname, loadavg, release, totalmem, type as osType } from 'node:os';

import { ROOT } from './manifest.js';

export interface MachineInfo {
  host: string;
  os: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  /** `uptime` output (load averages) when the run started and ended. */
  uptimeAtStart: string;
  uptimeAtEnd?: string;
  repositoryCommit: string;
}

export function uptime(): string {
  const r = spawnSync('uptime', [], { encoding: 'utf8' });
  if (r.status === 0) return r.stdout.trim().replace(/\s+/g, ' ');
  return `load average: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(', ')}`;
}

export function machineInfo(): MachineInfo {
  const commit = spawnSync('git', ['-C', ROOT, 'describe', '--always', '--dirty'], { encoding: 'utf8' });
  return {
    host: hostname(),
    os: `${osType()} ${release()}`,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: availableParallelism(),
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    uptimeAtStart: uptime(),
    repositoryCommit: commit.status === 0 ? commit.stdout.trim() : 'unknown',
  };
}
