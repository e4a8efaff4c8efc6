// Real kubectl for e2e tests: whether it is installed, and one invocation against a kubeconfig that
// resolves with its exit code and output (only a failure to run it at all rejects).
import { execFile, execFileSync } from 'node:child_process';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function runKubectl(
  kubeconfig: string,
  args: string[],
  opts: { timeoutMs?: number; input?: string } = {},
): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'kubectl',
      ['--kubeconfig', kubeconfig, ...args],
      { timeout: opts.timeoutMs ?? 20_000 },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') reject(new Error(err.message));
        else resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** One invocation that must succeed: resolves with its output, rejects with its stderr otherwise. */
export async function kubectlOutput(
  kubeconfig: string,
  args: string[],
  opts: { timeoutMs?: number } = {},
): Promise<string> {
  const r = await runKubectl(kubeconfig, args, { timeoutMs: opts.timeoutMs ?? 60_000 });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr || `exit ${r.code}`}`);
  return r.stdout;
}
