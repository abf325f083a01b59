import * as assert from 'assert';
import { formatDoctor } from '../../src/doctor';

describe('doctor', () => {
  it('shows each check, the fix under a problem, and what blocks a session', () => {
    const { text, summary } = formatDoctor({
      version: '1.0', os: 'linux', arch: 'amd64', workspace: '/ws', ok: false,
      checks: [
        { name: 'provider', status: 'error', message: 'no API key for anthropic', fix: 'set ANTHROPIC_API_KEY' },
        { name: 'ripgrep', status: 'ok', message: '/usr/bin/rg: ripgrep 13' },
      ],
    });
    assert.strictEqual(summary, '1 problem blocks a session');
    assert.match(text, /✗ error +provider +no API key for anthropic\n +fix: set ANTHROPIC_API_KEY\n/);
    assert.match(text, /✓ ok +ripgrep/);
  });
});
