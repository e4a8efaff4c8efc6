// Preloaded (node --import) into every controller binary `npm start` runs as its own process: when the
// process that started it is gone (killed with SIGKILL, so it could not stop its children), the binary is
// sent SIGTERM and shuts down as it would in a terminated Pod, instead of living on against an API server
// that no longer exists.
import { PARENT_PID_ENV } from './binary-processes.js';

const POLL_MS = 1_000;

// The starter's pid comes from the environment: read late from process.ppid it could be the adopter's already.
const parent = Number(process.env[PARENT_PID_ENV]) || process.ppid;
const check = (): void => {
  // An orphan is adopted by init or a subreaper, so its parent pid changes.
  if (process.ppid !== parent) process.kill(process.pid, 'SIGTERM');
};
check();
setInterval(check, POLL_MS).unref();
