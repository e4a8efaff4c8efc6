// An error an emulator answers with instead of doing the call. The kit decides WHEN (throttle, injected
// failure); the cloud emulator decides WHAT it looks like on the wire (status, code, message).

export type FaultKind = 'throttle' | 'injected' | 'lost-reply';

export interface FaultSpec {
  /** HTTP status the emulator answers with, e.g. 503. */
  status: number;
  /** The cloud's error code, e.g. "RequestLimitExceeded", "rateLimitExceeded". */
  code: string;
  message: string;
}

export class EmulatorFault extends Error {
  override readonly name = 'EmulatorFault';
  readonly status: number;
  readonly code: string;

  constructor(
    readonly kind: FaultKind,
    readonly action: string,
    spec: FaultSpec,
  ) {
    super(spec.message);
    this.status = spec.status;
    this.code = spec.code;
  }

  spec(): FaultSpec {
    return { status: this.status, code: this.code, message: this.message };
  }
}
