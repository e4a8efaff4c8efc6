import { expect } from 'chai';
import { NoProxyList } from '../../../lib/index.js';

describe('NoProxyList (NO_PROXY as the cluster Proxy writes it)', () => {
  it('bypasses nothing when unset or empty', () => {
    expect(new NoProxyList(undefined).bypasses('ec2.us-east-1.amazonaws.com', 443)).to.equal(false);
    expect(new NoProxyList(' , ').bypasses('ec2.us-east-1.amazonaws.com', 443)).to.equal(false);
  });

  it('"*" bypasses everything', () => {
    expect(new NoProxyList('example.com,*').bypasses('ec2.us-east-1.amazonaws.com', 443)).to.equal(true);
  });

  it('a bare domain matches itself and its subdomains; a leading "." or "*." only the subdomains', () => {
    const l = new NoProxyList('amazonaws.com, .internal, *.svc');
    expect(l.bypasses('amazonaws.com', 443)).to.equal(true);
    expect(l.bypasses('ec2.us-east-1.amazonaws.com', 443)).to.equal(true);
    expect(l.bypasses('notamazonaws.com', 443)).to.equal(false);
    expect(l.bypasses('internal', 443)).to.equal(false);
    expect(l.bypasses('ip-10-0-0-1.ec2.internal', 443)).to.equal(true);
    expect(l.bypasses('api.default.svc', 443)).to.equal(true);
  });

  it('matches host names case-insensitively and ignores a trailing dot', () => {
    expect(new NoProxyList('Compute.GoogleAPIs.com').bypasses('compute.googleapis.com.', 443)).to.equal(true);
  });

  it('honours a port when the entry names one', () => {
    const l = new NoProxyList('metadata.example:8080,10.1.2.3:443');
    expect(l.bypasses('metadata.example', 8080)).to.equal(true);
    expect(l.bypasses('metadata.example', 443)).to.equal(false);
    expect(l.bypasses('10.1.2.3', 443)).to.equal(true);
    expect(l.bypasses('10.1.2.3', 80)).to.equal(false);
  });

  it('matches IP addresses exactly and CIDR ranges by containment (IPv4 and IPv6)', () => {
    const l = new NoProxyList('10.0.0.0/16,169.254.169.254,fd00::/8,[::1]');
    expect(l.bypasses('10.0.200.7', 443)).to.equal(true);
    expect(l.bypasses('10.1.0.1', 443)).to.equal(false);
    expect(l.bypasses('169.254.169.254', 80)).to.equal(true);
    expect(l.bypasses('fd12:3456::1', 443)).to.equal(true);
    expect(l.bypasses('[::1]', 443)).to.equal(true);
    expect(l.bypasses('2001:db8::1', 443)).to.equal(false);
  });

  it('is NO_PROXY alone: loopback is matched only when listed', () => {
    expect(new NoProxyList('example.com').bypasses('127.0.0.1', 8443)).to.equal(false);
    expect(new NoProxyList('127.0.0.0/8').bypasses('127.0.0.1', 8443)).to.equal(true);
  });

  it('ignores a malformed CIDR instead of failing', () => {
    const l = new NoProxyList('10.0.0.0/99,example.com');
    expect(l.bypasses('10.0.0.1', 443)).to.equal(false);
    expect(l.bypasses('example.com', 443)).to.equal(true);
  });
});
