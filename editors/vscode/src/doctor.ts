// Runs `agent-lsp doctor --json` and turns its report into text for the
// "Agent: Diagnose" command. No `vscode` import.

import { execFile } from 'child_process';

export interface DoctorCheck {
  name: string;
  status: 'ok' | 'warning' | 'error' | 'skipped';
  message: string;
  fix?: string;
}

export interface DoctorReport {
  version: string;
  os: string;
  arch: string;
  workspace: string;
  ok: boolean;
  checks: DoctorCheck[];
}

const MARK: Record<string, string> = { ok: '✓', warning: '!', error: '✗', skipped: '-' };

/** The report as lines of text, one per check and one per fix. */
export function formatDoctor(r: DoctorReport): { text: string; summary: string } {
  const lines = [`agent-lsp ${r.version} doctor (${r.os}/${r.arch}) in ${r.workspace}`, ''];
  for (const c of r.checks) {
    lines.push(`${MARK[c.status] ?? '?'} ${c.status.padEnd(8)} ${c.name.padEnd(12)} ${c.message}`);
    if (c.fix) lines.push(`${' '.repeat(24)}fix: ${c.fix}`);
  }
  const blocking = r.checks.filter(c => c.status === 'error').length;
  const summary = blocking === 0 ? 'nothing blocks a session' : blocking === 1 ? '1 problem blocks a session' : `${blocking} problems block a session`;
  lines.push('', summary, '');
  return { text: lines.join('\n'), summary };
}

/** Runs the doctor of the binary in cwd. Its exit status 1 only says a check failed: the report still comes. */
export function runDoctor(command: string, env: NodeJS.ProcessEnv, cwd: string | undefined): Promise<{ ok: boolean; text: string; summary: string; report: DoctorReport }> {
  const args = ['doctor', '--json'];
  if (cwd) args.push('-C', cwd);
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, cwd, timeout: 60_000, maxBuffer: 4 << 20 }, (err, stdout, stderr) => {
      let report: DoctorReport;
      try {
        report = JSON.parse(stdout) as DoctorReport;
      } catch {
        reject(new Error(`${command} doctor failed: ${err?.message ?? ''} ${stderr}`.trim()));
        return;
      }
      resolve({ ok: report.ok, report, ...formatDoctor(report) });
    });
  });
}
