import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompileSourcesError, compileSources } from '../../../cmd/local/compiled-sources.js';

describe('compiled sources for the controller binaries', () => {
  let root: string;
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'compiled-sources-'));
    write('package.json', '{ "type": "module" }\n');
    write('tsconfig.json', '{ "compilerOptions": { "strict": true, "module": "nodenext" } }\n');
    write(
      'lib/greeting.ts',
      'export enum Tone { Plain = "plain" }\nexport function greet(who: string, tone: Tone = Tone.Plain): string { return `${tone} hello ${who}`; }\n',
    );
    write('providers/cloud.ts', 'export const cloud: string = "emulated";\n');
    write('sim/emulator.ts', 'export const emulator: string = "by the simulation";\n');
    write(
      'cmd/hello.ts',
      'import { greet } from "../lib/greeting.js";\nimport { cloud } from "../providers/cloud.js";\nimport { emulator } from "../sim/emulator.js";\nconsole.log(greet(cloud), emulator, import.meta.url.endsWith("/cmd/hello.js"));\n',
    );
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('compiles lib/, providers/, sim/ and cmd/ file by file into a tree plain node runs, each module keeping its own URL', () => {
    const compiled = compileSources(root);
    expect(compiled.built).to.equal(true);
    expect(compiled.dir.startsWith(join(root, '.tmp', 'compiled'))).to.equal(true);
    expect(execFileSync(process.execPath, [join(compiled.dir, 'cmd', 'hello.js')], { encoding: 'utf8' })).to.equal(
      'plain hello emulated by the simulation true\n',
    );
  });

  it('reuses the tree while the sources are unchanged, and compiles a new one beside it when a source changes', () => {
    const first = compileSources(root);
    expect(compileSources(root)).to.deep.equal({ dir: first.dir, built: false });
    write('providers/cloud.ts', 'export const cloud: string = "changed";\n');
    const second = compileSources(root);
    expect(second.built).to.equal(true);
    expect(second.dir).to.not.equal(first.dir);
    expect(existsSync(first.dir), 'a tree in use is never removed at once').to.equal(true);
    expect(execFileSync(process.execPath, [join(second.dir, 'cmd', 'hello.js')], { encoding: 'utf8' })).to.contain(
      'changed',
    );
    expect(execFileSync(process.execPath, [join(first.dir, 'cmd', 'hello.js')], { encoding: 'utf8' })).to.contain(
      'emulated',
    );
  });

  it('removes trees nobody used for a day', () => {
    const old = compileSources(root);
    const dayAgo = new Date(Date.now() - 25 * 60 * 60 * 1000);
    utimesSync(join(old.dir, '.last-used'), dayAgo, dayAgo);
    write('cmd/other.ts', 'export {};\n');
    const current = compileSources(root);
    expect(readdirSync(join(root, '.tmp', 'compiled'))).to.deep.equal([current.dir.split('/').pop()]);
  });

  it('fails with a typed error naming the file and line of a syntax error, and leaves no partial tree', () => {
    write('lib/broken.ts', 'export const x = ;\n');
    let err: unknown;
    try {
      compileSources(root);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(CompileSourcesError);
    expect((err as Error).message).to.match(/lib\/broken\.ts:1: /);
    expect(readdirSync(join(root, '.tmp', 'compiled'))).to.deep.equal([]);
  });
});
