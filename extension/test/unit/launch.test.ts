import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import { LAUNCHER, layout, serverLaunch } from '../../src/launch';

test('the server is launched with the bundled libs on ITS sys.path, not through PYTHONPATH', () => {
  const where = layout('/ext');
  const launch = serverLaunch('/venv/bin/python', where, { PATH: '/usr/bin', PYTHONPATH: '/user/own' });
  assert.equal(launch.command, '/venv/bin/python');
  assert.deepEqual(launch.args, ['-c', LAUNCHER, path.join('/ext', 'server'), path.join('/ext', 'dist', 'libs'), 'serve']);
  assert.equal(launch.env.PYTHONPATH, '/user/own', "the user's own PYTHONPATH is left alone");
  assert.ok(!JSON.stringify(launch.env).includes('/ext'), 'nothing of the extension leaks into the environment');
});

test('a trusted workspace starts the worker with the server, an untrusted one does not', () => {
  const where = layout('/ext');
  assert.deepEqual(serverLaunch('/venv/bin/python', where, {}, false, true).args.slice(4), ['serve', '--start-worker']);
  assert.deepEqual(serverLaunch('/venv/bin/python', where, {}, false, false).args.slice(4), ['serve']);
});

test('the launcher puts the dirs first, drops the cwd, and passes the arguments on', () => {
  const probe = LAUNCHER.replace(
    "runpy.run_module('exportlens', run_name='__main__', alter_sys=True)",
    'import json; print(json.dumps([sys.path[:2], "" in sys.path, sys.argv]))',
  );
  const run = spawnSync('python3', ['-c', probe, '/a/server', '/a/libs', 'serve', '--tcp'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), [['/a/server', '/a/libs'], false, ['exportlens', 'serve', '--tcp']]);
});
