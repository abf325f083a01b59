import * as assert from 'assert';
import * as os from 'os';
import * as path from 'path';
import { bundledServerPath, DEFAULT_SETTINGS, findServer, hasKey, initializationOptions, keyVariable, resolveServerPath, ServerNotFoundError, serverEnv, which, withSecretKey } from '../../src/settings';

describe('settings', () => {
  const files = new Set(['/opt/bin/agent-lsp', '/ws/bin/agent-lsp', path.join(os.homedir(), 'go/bin/agent-lsp'), '/usr/local/bin/my-agent']);
  const exists = (p: string) => files.has(p);
  const PATH = ['/usr/local/bin', '/opt/bin'].join(path.delimiter);

  it('finds agent-lsp on PATH when no path is set', () => {
    assert.strictEqual(resolveServerPath('', '/ws', PATH, exists), '/opt/bin/agent-lsp');
    assert.strictEqual(which('agent-lsp', '', exists), undefined);
  });

  it('expands ~ and ${workspaceFolder}, takes relative paths from the folder, bare names from PATH', () => {
    assert.strictEqual(resolveServerPath('~/go/bin/agent-lsp', '/ws', PATH, exists), path.join(os.homedir(), 'go/bin/agent-lsp'));
    assert.strictEqual(resolveServerPath('${workspaceFolder}/bin/agent-lsp', '/ws', PATH, exists), '/ws/bin/agent-lsp');
    assert.strictEqual(resolveServerPath('bin/agent-lsp', '/ws', PATH, exists), '/ws/bin/agent-lsp');
    assert.strictEqual(resolveServerPath('my-agent', '/ws', PATH, exists), '/usr/local/bin/my-agent');
  });

  it('says what to do when the binary is missing', () => {
    assert.throws(() => resolveServerPath('', '/ws', '/nowhere', exists), (e: Error) => e instanceof ServerNotFoundError && /agentLsp\.serverPath/.test(e.message));
    assert.throws(() => resolveServerPath('/missing/agent-lsp', '/ws', PATH, exists), /not an executable file/);
  });

  it('sends only the options that are set; the permission mode as Claude Code settings', () => {
    assert.deepStrictEqual(initializationOptions(DEFAULT_SETTINGS), {});
    assert.deepStrictEqual(initializationOptions({ ...DEFAULT_SETTINGS, model: 'm', provider: 'openai', baseURL: 'http://x/v1', maxTurns: 7, permissionMode: 'acceptEdits' }),
      { model: 'm', provider: 'openai', baseURL: 'http://x/v1', maxTurns: 7, permissions: { defaultMode: 'acceptEdits' } });
  });

  it('passes VS Code\'s workspace trust when known', () => {
    assert.deepStrictEqual(initializationOptions(DEFAULT_SETTINGS, true), { workspaceTrusted: true });
    assert.deepStrictEqual(initializationOptions(DEFAULT_SETTINGS, false), { workspaceTrusted: false });
  });

  it('adds the env setting to the environment, strings only', () => {
    const env = serverEnv({ PATH: '/bin', KEEP: '1' }, { ANTHROPIC_API_KEY: 'k', N: 3, BAD: { x: 1 } });
    assert.deepStrictEqual(env, { PATH: '/bin', KEEP: '1', ANTHROPIC_API_KEY: 'k', N: '3' });
  });

  it('looks for the binary in the setting, then the bundled one, then PATH, and says which it used', () => {
    const bundled = bundledServerPath('/ext', 'linux');
    assert.strictEqual(bundled, path.join('/ext', 'server', 'agent-lsp'));
    assert.strictEqual(bundledServerPath('/ext', 'win32'), path.join('/ext', 'server', 'agent-lsp.exe'));
    const all = new Set([...files, bundled]);
    const has = (p: string) => all.has(p);
    assert.deepStrictEqual(findServer('/ws/bin/agent-lsp', '/ws', PATH, bundled, has), { path: '/ws/bin/agent-lsp', source: 'agentLsp.serverPath' });
    assert.deepStrictEqual(findServer('', '/ws', PATH, bundled, has), { path: bundled, source: 'bundled' });
    assert.deepStrictEqual(findServer('', '/ws', PATH, bundled, exists), { path: '/opt/bin/agent-lsp', source: 'PATH' });
    assert.deepStrictEqual(findServer('', '/ws', PATH, undefined, has), { path: '/opt/bin/agent-lsp', source: 'PATH' });
    assert.throws(() => findServer('', '/ws', '/nowhere', bundled, exists), (e: Error) => e instanceof ServerNotFoundError && /platform/.test(e.message));
    // A setting that points nowhere is an error, not a reason to fall back.
    assert.throws(() => findServer('/missing/agent-lsp', '/ws', PATH, bundled, has), /not an executable file/);
  });

  it('passes the key from secret storage under the provider\'s variable, unless the environment has one', () => {
    assert.strictEqual(keyVariable(''), 'ANTHROPIC_API_KEY');
    assert.strictEqual(keyVariable('ollama'), 'OPENAI_API_KEY');
    assert.deepStrictEqual(withSecretKey({ PATH: '/bin' }, '', 'sk'), { PATH: '/bin', ANTHROPIC_API_KEY: 'sk' });
    assert.deepStrictEqual(withSecretKey({ PATH: '/bin' }, 'openai', 'sk'), { PATH: '/bin', OPENAI_API_KEY: 'sk' });
    assert.deepStrictEqual(withSecretKey({ OPENAI_API_KEY: 'env' }, '', 'sk'), { OPENAI_API_KEY: 'env' });
    assert.deepStrictEqual(withSecretKey({ PATH: '/bin' }, '', undefined), { PATH: '/bin' });
    assert.ok(hasKey({ ANTHROPIC_AUTH_TOKEN: 't' }));
    assert.ok(!hasKey({ ANTHROPIC_API_KEY: '' }));
  });
});
