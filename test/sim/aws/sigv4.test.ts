// The emulator's SigV4 check computes what AWS computes: the vectors of AWS's published Signature Version 4
// test suite (get-vanilla, get-vanilla-query-order-key-case), the header parsing, and a round trip.
import { expect } from 'chai';
import { expectedSignature, parseSigV4Authorization, signatureMatches, signRequest } from '../../../sim/aws/sigv4.js';

const SUITE_KEY = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const scope = { accessKeyId: SUITE_KEY.accessKeyId, date: '20150830', region: 'us-east-1', service: 'service' };
const headers = ['Host', 'example.amazonaws.com', 'X-Amz-Date', '20150830T123600Z'];

describe('SigV4 as the EC2 emulator checks it', () => {
  it('signs the AWS test suite’s requests as AWS does', () => {
    const sign = (url: string) =>
      expectedSignature({ ...scope, signedHeaders: ['host', 'x-amz-date'], signature: '' }, SUITE_KEY.secretAccessKey, {
        method: 'GET',
        url,
        rawHeaders: headers,
        body: '',
      });
    expect(sign('/')).to.equal('5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31');
    expect(sign('/?Param2=value2&Param1=value1')).to.equal(
      'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500',
    );
  });

  it('reads the Authorization header, and nothing from a malformed one', () => {
    expect(
      parseSigV4Authorization(
        'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/ec2/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc',
      ),
    ).to.deep.equal({ ...scope, service: 'ec2', signedHeaders: ['host', 'x-amz-date'], signature: 'abc' });
    for (const bad of [
      undefined,
      'Bearer x',
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/2015/us-east-1/ec2/aws4_request, SignedHeaders=host, Signature=abc',
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/ec2/aws4_request, Signature=abc',
    ])
      expect(parseSigV4Authorization(bad), String(bad)).to.equal(undefined);
  });

  it('accepts what signRequest signs, and nothing changed after signing', () => {
    const req = {
      method: 'POST',
      url: '/',
      host: '127.0.0.1:1',
      contentType: 'application/x-www-form-urlencoded',
      body: 'Action=DescribeRegions&Version=2016-11-15',
    };
    const signed = signRequest(SUITE_KEY, { region: 'us-east-1', service: 'ec2' }, req);
    const auth = parseSigV4Authorization(signed.authorization)!;
    const received = (body: string) => ({
      method: 'POST',
      url: '/',
      rawHeaders: ['host', req.host, 'content-type', req.contentType, 'x-amz-date', signed['x-amz-date']],
      body,
    });
    expect(signatureMatches(auth, SUITE_KEY.secretAccessKey, received(req.body))).to.equal(true);
    expect(signatureMatches(auth, 'another-secret', received(req.body))).to.equal(false);
    expect(signatureMatches(auth, SUITE_KEY.secretAccessKey, received(`${req.body}&X=1`))).to.equal(false);
  });
});
