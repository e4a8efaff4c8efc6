// Why a patch could not be applied, with the HTTP status kube-apiserver answers for it:
// 400 for a patch document that is malformed, 422 for a well-formed patch that does not apply to the object
// (a failed `test`, a path that does not exist), 409 for a conflict the caller should retry.

export type PatchErrorCode = 400 | 409 | 422;

export class PatchError extends Error {
  readonly code: PatchErrorCode;

  constructor(code: PatchErrorCode, message: string) {
    super(message);
    this.name = 'PatchError';
    this.code = code;
  }
}
