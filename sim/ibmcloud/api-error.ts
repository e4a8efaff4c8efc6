// Error answers in IBM Cloud's own formats: VPC (also used here for Resource Manager and Global Tagging)
// `{errors:[{code,message,more_info,target}],trace}` and IAM `{errorCode,errorMessage,context}`.

export interface ErrorTarget {
  name: string;
  type: 'field' | 'parameter' | 'header';
}

export class IbmApiError extends Error {
  override readonly name = 'IbmApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly target?: ErrorTarget,
  ) {
    super(message);
  }
}

const MORE_INFO = 'https://cloud.ibm.com/docs/vpc?topic=vpc-rias-error-messages';

export function vpcErrorBody(code: string, message: string, trace: string, target?: ErrorTarget): unknown {
  return { errors: [{ code, message, more_info: `${MORE_INFO}#${code}`, ...(target ? { target } : {}) }], trace };
}

export function iamErrorBody(code: string, message: string, trace: string, status: number): unknown {
  return {
    errorCode: code,
    errorMessage: message,
    context: {
      requestId: trace,
      requestType: 'incoming.Identity_Token',
      transactionId: trace,
      statusCode: String(status),
    },
  };
}

export const badField = (name: string, message: string): IbmApiError =>
  new IbmApiError(400, 'bad_field', message, { name, type: 'field' });
export const missingField = (name: string): IbmApiError =>
  new IbmApiError(400, 'missing_field', `Missing required field: ${name}`, { name, type: 'field' });
export const badParameter = (name: string, message: string): IbmApiError =>
  new IbmApiError(400, 'bad_parameter', message, { name, type: 'parameter' });
export const notFound = (what: string, id: string, target?: ErrorTarget): IbmApiError =>
  new IbmApiError(404, 'not_found', `${what} not found: ${id}`, target);

/** What the emulator answers when throttling: HTTP 429, as IBM's API gateway does. */
export function throttleFaultFor(_action: string): { status: number; code: string; message: string } {
  return { status: 429, code: 'rate_limit_exceeded', message: 'Rate limit exceeded. Please retry later.' };
}

export function serverFaultFor(_action: string): { status: number; code: string; message: string } {
  return {
    status: 500,
    code: 'internal_error',
    message:
      'The system is currently unable to fulfill the request. Please retry. If the failure persists, contact support and provide the trace value from this error.',
  };
}
