import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { OUTPUTS, staleReason } from '../../scripts/build-if-stale.mjs';

describe('npm start builds only when sources changed', () => {
  let root: string;
  const write = (file: string, time: number) => {
    const full = path.join(root, file);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, 'x');
    fs.utimesSync(full, time, time);
  };

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'opencity-build-'));
    write('src/main.ts', 1000);
    write('web/src/main.ts', 1000);
    write('package.json', 1000);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('builds when an output is missing', () => {
    assert.match(String(staleReason(root)), /dist\/bin\/opencity\.js is missing/);
  });

  it('does not build when every output is newer than every source', () => {
    for (const output of OUTPUTS as string[]) write(output, 2000);
    assert.equal(staleReason(root), undefined);
  });

  it('builds when a source changed after the last build, and names it', () => {
    for (const output of OUTPUTS as string[]) write(output, 2000);
    write('src/interfaces/new-route.ts', 3000);
    assert.equal(staleReason(root), `${path.join('src', 'interfaces', 'new-route.ts')} changed since the last build`);
  });

  it('ignores what the build writes inside its source folders', () => {
    for (const output of OUTPUTS as string[]) write(output, 2000);
    write('web/dist/assets/index.js', 3000);
    assert.equal(staleReason(root), undefined);
  });
});
