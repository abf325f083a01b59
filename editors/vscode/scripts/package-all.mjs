// Builds one .vsix per platform, each with that platform's agent-lsp in
// server/ (as rust-analyzer and clangd ship theirs): the extension finds it
// when agentLsp.serverPath is empty, so a user installs nothing else.
//
// Usage: node scripts/package-all.mjs [vscode-target...]
//   (default: every target below; output dist/agent-lsp-<target>.vsix)
// Env: AGENT_LSP_VERSION stamps the binaries (default: git describe).
// Run `node esbuild.mjs` first (npm run build); test/run.sh does.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const ext = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repo = path.resolve(ext, '../..');

// VS Code's platform names and Go's.
const TARGETS = {
  'linux-x64': ['linux', 'amd64'],
  'linux-arm64': ['linux', 'arm64'],
  'darwin-x64': ['darwin', 'amd64'],
  'darwin-arm64': ['darwin', 'arm64'],
  'win32-x64': ['windows', 'amd64'],
};

const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(TARGETS);
let version = process.env.AGENT_LSP_VERSION;
if (!version) {
  try {
    version = execFileSync('git', ['describe', '--tags', '--always', '--dirty'], { cwd: repo, encoding: 'utf8' }).trim();
  } catch {
    version = 'dev';
  }
}
const server = path.join(ext, 'server');
const vsce = path.join(ext, 'node_modules', '.bin', process.platform === 'win32' ? 'vsce.cmd' : 'vsce');
fs.mkdirSync(path.join(ext, 'dist'), { recursive: true });
try {
  for (const target of wanted) {
    const goTarget = TARGETS[target];
    if (!goTarget) throw new Error(`unknown target ${target}: use ${Object.keys(TARGETS).join(', ')}`);
    const [goos, goarch] = goTarget;
    fs.rmSync(server, { recursive: true, force: true });
    fs.mkdirSync(server);
    const exe = path.join(server, goos === 'windows' ? 'agent-lsp.exe' : 'agent-lsp');
    console.error(`package-all: ${target}: go build (${goos}/${goarch}, ${version})`);
    execFileSync('go', ['build', '-trimpath', '-ldflags', `-s -w -X main.version=${version}`, '-o', exe, './cmd/agent-lsp'], {
      cwd: repo, stdio: 'inherit', env: { ...process.env, GOOS: goos, GOARCH: goarch, CGO_ENABLED: '0' },
    });
    fs.chmodSync(exe, 0o755);
    const out = path.join(ext, 'dist', `agent-lsp-${target}.vsix`);
    execFileSync(vsce, ['package', '--no-dependencies', '--skip-license', '--target', target, '-o', out], { cwd: ext, stdio: ['ignore', 'ignore', 'inherit'] });
    console.error(`package-all: ${out}`);
  }
} finally {
  fs.rmSync(server, { recursive: true, force: true });
}
