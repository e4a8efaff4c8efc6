import { expect } from 'chai';
import { Writable } from 'node:stream';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { goQuote } from '../../../lib/base/go-quote.js';
import { parseFrame } from '../../../lib/base/log-caller.js';
import { createLogger, type LoggerOptions } from '../../../lib/base/structured-logger.js';
import { parseKlogLines } from './support/klog-lines.js';
import { globMatch, parseVmodule } from '../../../lib/base/vmodule.js';

/** 2026-11-28 06:32:59.123456 UTC */
const T = Date.UTC(2026, 10, 28, 6, 32, 59) + 123.456;

function capture(opts: LoggerOptions = {}) {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  });
  const log = createLogger({ clock: new FakeClock(T), pid: 1, stream, ...opts });
  return { log, text: () => text, lines: () => text.split('\n').filter(Boolean) };
}

/** The line that calls it, as the stack reports it. */
function thisLine(): number {
  return parseFrame(new Error().stack?.split('\n').slice(1).join('\n') ?? '')?.line ?? -1;
}

describe('createLogger', () => {
  const tz = process.env.TZ;
  before(() => (process.env.TZ = 'UTC'));
  after(() => (tz === undefined ? delete process.env.TZ : (process.env.TZ = tz)));

  describe("klog's text format (the default)", () => {
    it('writes the header klog writes: severity, MMDD, time to the microsecond, pid in 7 columns, file:line of the caller', () => {
      const { log, lines } = capture();
      log.info('Reconciling', { machine: 'ns/m' });
      const line = thisLine() - 1; // the call above
      expect(lines()).to.deep.equal([
        `I1128 06:32:59.123456       1 structured-logger.test.ts:${line}] "Reconciling" machine="ns/m"`,
      ]);
    });

    it('marks warnings W and errors E; the error of an error line comes first as err, then the child fields, then the call fields', () => {
      const { log, lines } = capture();
      log.warn('slow');
      log
        .child({ controller: 'machine' })
        .child({ key: 'ns/m' })
        .error('Reconciler error', { requeues: 2, error: new Error('outer', { cause: new Error('inner') }) });
      const [warn, err] = lines();
      expect(warn).to.match(/^W1128 .*\] "slow"$/);
      expect(err).to.match(
        /^E1128 .*\] "Reconciler error" err="outer: inner" controller="machine" key="ns\/m" requeues=2$/,
      );
    });

    it("quotes strings as Go's strconv.Quote and writes other values as Go's JSON encoder does", () => {
      const { log, text } = capture();
      log.info('a "quoted"\tmessage', {
        s: 'tab\tquote" back\\ bell\x07 nul\x00 del\x7f ls\u2028 nbsp\u00a0 é 日本 😀',
        n: 3,
        f: 0.5,
        b: true,
        nil: null,
        missing: undefined,
        big: 12345678901234567890n,
        obj: { html: '<a & b>', list: [1, 'x'] },
        err: new Error('boom'),
      });
      expect(text()).to.contain(
        '] "a \\"quoted\\"\\tmessage" s="tab\\tquote\\" back\\\\ bell\\a nul\\x00 del\\x7f ls\\u2028 nbsp\\u00a0 é 日本 😀"' +
          ' n=3 f=0.5 b=true nil=null missing=null big=12345678901234567890' +
          ' obj={"html":"\\u003ca \\u0026 b\\u003e","list":[1,"x"]} err="boom"\n',
      );
    });

    it("prints a wrapped error's text once, leaving out causes whose message the wrapper already repeats", () => {
      const { log, text } = capture();
      const hangUp = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      const request = new Error(`DELETE /apis/machine.openshift.io/v1beta1/machines/m: ${hangUp.message}`, {
        cause: hangUp,
      });
      const sync = new Error(`failed to sync machines: ${request.message}`, { cause: request });
      log.error('Reconciler error', { error: sync });
      log.error('Reconciler error', { error: new Error('could not patch', { cause: request }) });
      expect(parseKlogLines(text()).map((l) => l.fields.err)).to.deep.equal([
        'failed to sync machines: DELETE /apis/machine.openshift.io/v1beta1/machines/m: socket hang up',
        'could not patch: DELETE /apis/machine.openshift.io/v1beta1/machines/m: socket hang up',
      ]);
    });

    it('writes a string with line breaks as an indented block, as klog does', () => {
      const { log, text } = capture();
      log.info('rendered', { userDataTemplate: 'line 1\nline 2', after: 'x' });
      expect(text()).to.match(/\] "rendered" userDataTemplate=<\n\tline 1\n\tline 2\n > after="x"\n$/);
      const [parsed] = parseKlogLines(text());
      expect(parsed?.fields).to.deep.equal({ userDataTemplate: 'line 1\nline 2', after: 'x' });
    });

    it('keeps one pair per key, as klog does: the same value keeps its first place, a new value moves to the end', () => {
      const { log, lines } = capture();
      const child = log.child({ a: 1, b: 2 });
      child.info('same', { a: 1, c: 3 });
      child.info('changed', { a: 9 });
      expect(lines()[0]).to.match(/"same" a=1 b=2 c=3$/);
      expect(lines()[1]).to.match(/"changed" b=2 a=9$/);
    });

    it('honours --skip_headers and --add_dir_header', () => {
      const skipped = capture({ skipHeaders: true });
      skipped.log.info('bare', { k: 'v' });
      expect(skipped.text()).to.equal('"bare" k="v"\n');
      const withDir = capture({ addDirHeader: true });
      withDir.log.info('here');
      expect(withDir.text()).to.match(/ base\/structured-logger\.test\.ts:\d+\] "here"\n$/);
    });

    it('reads back through the test parser with every value intact', () => {
      const { log, text } = capture();
      log.error('failed', { error: 'x\ny', name: 'a "b" \u0001', count: 7, obj: { k: ['v'] } });
      const [l] = parseKlogLines(text());
      expect(l).to.deep.include({ severity: 'E', pid: 1, file: 'structured-logger.test.ts', msg: 'failed' });
      expect(l?.fields).to.deep.equal({ err: 'x\ny', name: 'a "b" \u0001', count: 7, obj: { k: ['v'] } });
    });
  });

  describe("Kubernetes' JSON format (--logging-format=json)", () => {
    it('writes ts (milliseconds since the epoch, as component-base does), caller, msg, v, then the pairs, in that order', () => {
      const { log, lines } = capture({ format: 'json', level: 2 });
      log.child({ controller: 'machine' }).debug('Reconciling', { machine: 'ns/m' }, 2);
      const line = thisLine() - 1; // the call above
      expect(lines()).to.deep.equal([
        `{"ts":${T},"caller":"base/structured-logger.test.ts:${line}","msg":"Reconciling","v":2,"controller":"machine","machine":"ns/m"}`,
      ]);
    });

    it('gives an error line err and no v, and a warning v=0 (klog hands warnings to a structured logger as info)', () => {
      const { log, lines } = capture({ format: 'json' });
      log.error('Reconciler error', { error: new Error('outer', { cause: 'inner' }), key: 'ns/m' });
      log.error('no error given');
      log.warn('slow');
      const [e1, e2, w] = lines().map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(Object.keys(e1 ?? {})).to.deep.equal(['ts', 'caller', 'msg', 'err', 'key']);
      expect(e1).to.deep.include({ msg: 'Reconciler error', err: 'outer: inner', key: 'ns/m' });
      expect(Object.keys(e2 ?? {})).to.deep.equal(['ts', 'caller', 'msg']);
      expect(w).to.deep.include({ msg: 'slow', v: 0 });
    });
  });

  it('prints debug(…, n) only at -v >= n, and nothing but warnings and errors at a negative level', () => {
    const at2 = capture({ level: 2 });
    at2.log.debug('two', {}, 2);
    at2.log.debug('three', {}, 3);
    expect(parseKlogLines(at2.text()).map((l) => l.msg)).to.deep.equal(['two']);
    const silent = capture({ level: -1 });
    silent.log.info('info');
    silent.log.warn('warn');
    expect(parseKlogLines(silent.text()).map((l) => l.msg)).to.deep.equal(['warn']);
  });

  it("raises the verbosity of the files --vmodule names, the first matching pattern winning, as klog's -vmodule does", () => {
    const { log, text } = capture({ level: 1, vmodule: 'other=9,structured-logger.test=3,structured-*=5' });
    log.debug('one', {}, 1);
    log.debug('three', {}, 3);
    log.debug('four', {}, 4);
    expect(parseKlogLines(text()).map((l) => [l.msg, l.file])).to.deep.equal([
      ['one', 'structured-logger.test.ts'],
      ['three', 'structured-logger.test.ts'],
    ]);
    const wildcard = capture({ vmodule: 'structured-?ogger.*=2' });
    wildcard.log.debug('two', {}, 2);
    expect(parseKlogLines(wildcard.text()).map((l) => l.msg)).to.deep.equal(['two']);
  });

  it('never prints the data of a Secret handed to it, in either format, at any depth', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: 'ns', name: 'aws-cloud-credentials' },
      data: { aws_secret_access_key: 'c2VjcmV0LWtleQ==' },
      stringData: { userData: '#cloud-config password: hunter2' },
    };
    for (const format of ['text', 'json'] as const) {
      const { log, text } = capture({ format });
      log.info('read', { secret, nested: { list: [secret] } });
      log.child({ secret }).error('failed', { error: secret });
      expect(text()).to.not.contain('c2VjcmV0LWtleQ==').and.not.contain('hunter2');
      expect(text()).to.contain('aws-cloud-credentials').and.contain('[redacted]');
    }
  });
});

describe('goQuote', () => {
  it("matches Go's strconv.Quote", () => {
    expect(goQuote('plain')).to.equal('"plain"');
    expect(goQuote('\n\r\t\v\f\b\x07')).to.equal('"\\n\\r\\t\\v\\f\\b\\a"');
    expect(goQuote('\x1b[0m')).to.equal('"\\x1b[0m"');
    expect(goQuote('\u200b\ufeff')).to.equal('"\\u200b\\ufeff"');
    expect(goQuote('\u{e0001}')).to.equal('"\\U000e0001"');
    expect(goQuote('Ω ü ✓')).to.equal('"Ω ü ✓"');
  });
});

describe('parseVmodule', () => {
  it("reads klog's pattern=N list, skipping empty items and level 0, and refuses what klog refuses", () => {
    expect(parseVmodule('machine-controller=4,,drain*=2,quiet=0')).to.deep.equal([
      { pattern: 'machine-controller', level: 4 },
      { pattern: 'drain*', level: 2 },
    ]);
    expect(() => parseVmodule('machine-controller')).to.throw(/expect comma-separated list of filename=N/);
    expect(() => parseVmodule('a=b=1')).to.throw(/expect comma-separated list of filename=N/);
    expect(() => parseVmodule('a=x')).to.throw(/expect comma-separated list of filename=N/);
    expect(() => parseVmodule('a=-1')).to.throw(/negative value for vmodule level/);
    expect(() => parseVmodule('a[b=1')).to.throw(/unterminated \[/);
  });

  it("matches as Go's filepath.Match: *, ?, classes, ranges, negation and escapes", () => {
    expect(globMatch('machine-*', 'machine-controller')).to.equal(true);
    expect(globMatch('*-controller', 'machineset-controller')).to.equal(true);
    expect(globMatch('machine-*', 'machineset-controller')).to.equal(false);
    expect(globMatch('dr?in', 'drain')).to.equal(true);
    expect(globMatch('[a-c]x', 'bx')).to.equal(true);
    expect(globMatch('[^a-c]x', 'bx')).to.equal(false);
    expect(globMatch('a\\*', 'a*')).to.equal(true);
    expect(globMatch('a\\*', 'ab')).to.equal(false);
  });
});

describe('parseFrame', () => {
  it("reads the file and line of a stack's first frame, named or not, async or not", () => {
    expect(parseFrame('Error\n    at async Foo.bar (file:///a/b c/x.ts:12:5)\n    at y (/z.ts:1:1)')).to.deep.equal({
      file: 'file:///a/b c/x.ts',
      line: 12,
    });
    expect(parseFrame('Error\n    at /app/dist/lib/x.js:3:17')).to.deep.equal({ file: '/app/dist/lib/x.js', line: 3 });
    expect(parseFrame('Error')).to.equal(undefined);
    expect(parseFrame('Error\n    at <anonymous>')).to.equal(undefined);
  });
});
