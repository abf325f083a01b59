// The `@` picker's MCP resources: each is offered as `@server:uri` and
// becomes that mention in the prompt, which the agent attaches the resource
// for (its pattern is engine/mcpcommand.go's mcpMention).
import * as assert from 'assert';
import type { MCPResource } from '../../src/protocol';
import { mcpResourceAttachment, mcpResourcePick } from '../../src/shared/context';

/** engine/mcpcommand.go's mcpMention, which finds the mentions in a prompt's text. */
const MENTION = /(?:^|\s)@([A-Za-z0-9_-]+):(\S+)/g;

describe('MCP resources in the @ picker', () => {
  const cases: { name: string; r: MCPResource; pick: ReturnType<typeof mcpResourcePick> }[] = [
    {
      name: 'named, with a description',
      r: { server: 'docs', uri: 'docs://guide.md', name: 'guide', mimeType: 'text/markdown', description: 'The guide' },
      pick: { label: '$(plug) @docs:docs://guide.md', description: 'guide', detail: 'The guide' },
    },
    {
      name: 'named as its URI: the type instead',
      r: { server: 'db', uri: 'postgres://x/users', name: 'postgres://x/users', mimeType: 'application/json' },
      pick: { label: '$(plug) @db:postgres://x/users', description: 'application/json', detail: undefined },
    },
    {
      name: 'nothing but the URI',
      r: { server: 'my-server_2', uri: 'file:///srv/a.txt', name: '' },
      pick: { label: '$(plug) @my-server_2:file:///srv/a.txt', description: undefined, detail: undefined },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepStrictEqual(mcpResourcePick(c.r), c.pick);
      const a = mcpResourceAttachment(c.r);
      assert.strictEqual(a.label, `${c.r.server}:${c.r.uri}`);
      assert.deepStrictEqual(a.block, { type: 'text', text: `@${c.r.server}:${c.r.uri}` });
      // The agent finds the mention in the prompt's text, after the user's words.
      const text = a.block.type === 'text' ? a.block.text : '';
      const found = [...`summarize this\n${text}`.matchAll(MENTION)].map(m => [m[1], m[2]]);
      assert.deepStrictEqual(found, [[c.r.server, c.r.uri]]);
    });
  }

  it('gives each pick its own chip', () => {
    const r: MCPResource = { server: 'docs', uri: 'docs://a', name: 'a' };
    assert.notStrictEqual(mcpResourceAttachment(r).id, mcpResourceAttachment(r).id);
  });
});
