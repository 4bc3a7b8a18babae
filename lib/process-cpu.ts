import { readFileSync } from 'node:fs';

/**
 * The CPU time another process has used so far, in milliseconds (user and system, from /proc/<pid>/stat), or undefined
 * where there is no /proc or the process is gone. Used to judge whether a child is getting anywhere: on a loaded machine
 * a child can take minutes of wall time for seconds of work, and a wall-clock limit would kill it while it progresses.
 */
export function processCpuMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may contain spaces; the fields after it are space-separated, and
  // utime and stime are fields 14 and 15, in clock ticks of 1/100 s (USER_HZ, fixed by the kernel's ABI).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks * 10 : undefined;
}
