import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { derUnsignedInteger, generateServingCert } from '../../../sim/apiserver/tls-cert.js';

describe('generateServingCert', () => {
  it('produces 300 certificates in a row that node:crypto parses, whatever random serial each gets', () => {
    for (let i = 0; i < 300; i++) {
      const { certPem } = generateServingCert();
      const cert = new X509Certificate(certPem);
      expect(cert.subject).to.equal('CN=machine-api-envtest');
    }
  });

  it('encodes a serial whose first byte is zero without illegal padding', () => {
    const serial = Buffer.from([
      0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
    ]);
    const cert = new X509Certificate(generateServingCert('x', Date.now(), { serial }).certPem);
    expect(cert.serialNumber).to.equal('0102030405060708090A0B0C0D0E0F');
  });

  it('encodes a serial with the high bit set as a positive number', () => {
    const serial = Buffer.alloc(16, 0xff);
    const cert = new X509Certificate(generateServingCert('x', Date.now(), { serial }).certPem);
    expect(cert.serialNumber).to.equal('7F' + 'FF'.repeat(15));
  });

  it('is valid for 127.0.0.1 and localhost', () => {
    const cert = new X509Certificate(generateServingCert().certPem);
    expect(cert.checkIP('127.0.0.1')).to.equal('127.0.0.1');
    expect(cert.checkHost('localhost')).to.equal('localhost');
  });
});

describe('derUnsignedInteger', () => {
  const hex = (b: Buffer) => b.toString('hex');
  it('drops redundant leading zero bytes', () => {
    expect(hex(derUnsignedInteger(Buffer.from([0, 0, 0x12])))).to.equal('020112');
  });
  it('keeps one zero byte when the high bit is set', () => {
    expect(hex(derUnsignedInteger(Buffer.from([0, 0, 0x80])))).to.equal('02020080');
    expect(hex(derUnsignedInteger(Buffer.from([0xff])))).to.equal('020200ff');
  });
  it('encodes zero as a single zero byte', () => {
    expect(hex(derUnsignedInteger(Buffer.from([0, 0])))).to.equal('020100');
  });
});
