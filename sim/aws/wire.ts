// The Query-protocol services the emulator answers on one endpoint (EC2, both ELBs and STS), told apart by `Version`, and
// how each writes results and errors.
import { escapeXml } from './xml.js';

export type ServiceName = 'ec2' | 'elb' | 'elbv2' | 'sts';

export const SERVICE_BY_VERSION: Record<string, ServiceName> = {
  '2016-11-15': 'ec2',
  '2012-06-01': 'elb',
  '2015-12-01': 'elbv2',
  '2011-06-15': 'sts',
};

const NAMESPACE: Record<ServiceName, string> = {
  ec2: 'http://ec2.amazonaws.com/doc/2016-11-15/',
  elb: 'http://elasticloadbalancing.amazonaws.com/doc/2012-06-01/',
  elbv2: 'http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/',
  sts: 'https://sts.amazonaws.com/doc/2011-06-15/',
};

const DECL = '<?xml version="1.0" encoding="UTF-8"?>\n';

/** The knob/counter key of an action: EC2 actions bare, ELB ones prefixed (both ELBs have DescribeLoadBalancers). */
export function actionKey(service: ServiceName, action: string): string {
  return service === 'ec2' ? action : `${service}:${action}`;
}

export function successXml(service: ServiceName, action: string, body: string, requestId: string): string {
  if (service === 'ec2') {
    return `${DECL}<${action}Response xmlns="${NAMESPACE.ec2}"><requestId>${requestId}</requestId>${body}</${action}Response>`;
  }
  return (
    `${DECL}<${action}Response xmlns="${NAMESPACE[service]}"><${action}Result>${body}</${action}Result>` +
    `<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${action}Response>`
  );
}

export function errorXml(
  service: ServiceName,
  status: number,
  code: string,
  message: string,
  requestId: string,
): string {
  if (service === 'ec2') {
    return `${DECL}<Response><Errors><Error><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>`;
  }
  const type = status >= 500 ? 'Receiver' : 'Sender';
  return (
    `${DECL}<ErrorResponse xmlns="${NAMESPACE[service]}"><Error><Type>${type}</Type><Code>${escapeXml(code)}</Code>` +
    `<Message>${escapeXml(message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`
  );
}

/** EC2 throttles with 503 RequestLimitExceeded; ELB with 400 Throttling. */
export function throttleFaultFor(action: string): { status: number; code: string; message: string } {
  return action.startsWith('elb')
    ? { status: 400, code: 'Throttling', message: 'Rate exceeded' }
    : { status: 503, code: 'RequestLimitExceeded', message: 'Request limit exceeded.' };
}

export function serverFaultFor(action: string): { status: number; code: string; message: string } {
  return action.startsWith('elb')
    ? {
        status: 500,
        code: 'InternalFailure',
        message: 'The request processing has failed because of an unknown error, exception or failure.',
      }
    : { status: 500, code: 'InternalError', message: 'An internal error has occurred' };
}

/** Knob action classes: EC2 reads, EC2 writes, ELB. */
export function classifyAction(action: string): string {
  if (action.startsWith('elb')) return 'elb';
  return action.startsWith('Describe') ? 'describe' : 'mutate';
}
