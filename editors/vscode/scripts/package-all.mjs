// Builds one .vsix per platform, each with that platform's agent-lsp in
// server/ (as rust-analyzer and clangd ship theirs): the extension finds it
// when agentLsp.serverPath is empty, so a user installs nothing else.
//
// Usage: node scripts/package-all.mjs [vscode-target...]
//   (default: every target below; output dist/agent-lsp-<target>.vsix)
// Env: AGENT_LSP_VERSION stamps the binaries (default: git describe).
// From a fresh clone it installs the npm packages (npm ci) and builds the
// extension (esbuild) first; when something it needs is missing (Node's
// npm, Go) it says which and exits 1 without a stack trace.
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

// fail ends the run with one line saying what is wrong.
function fail(msg) {
  console.error(`package-all: ${msg}`);
  process.exit(1);
}

// run runs a program in dir, naming it when it is missing or fails.
function run(what, prog, args, opts) {
  try {
    execFileSync(prog, args, { stdio: 'inherit', ...opts });
  } catch (err) {
    if (err.code === 'ENOENT') fail(`${what}: ${prog} is not installed or not on PATH`);
    fail(`${what}: ${prog} ${args.join(' ')} exited with ${err.status ?? err.signal ?? err.message}`);
  }
}

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
for (const target of wanted) {
  if (!TARGETS[target]) fail(`unknown target ${target}: use ${Object.keys(TARGETS).join(', ')}`);
}
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
if (!fs.existsSync(vsce)) {
  console.error('package-all: node_modules is missing: npm ci');
  run('installing the npm packages', npm, ['ci', '--no-audit', '--no-fund'], { cwd: ext });
}
console.error('package-all: building the extension (node esbuild.mjs)');
run('building the extension', process.execPath, ['esbuild.mjs'], { cwd: ext });
fs.mkdirSync(path.join(ext, 'dist'), { recursive: true });
// server/ holds one target's binary only while it is packaged.
process.on('exit', () => fs.rmSync(server, { recursive: true, force: true }));
for (const target of wanted) {
  const [goos, goarch] = TARGETS[target];
  fs.rmSync(server, { recursive: true, force: true });
  fs.mkdirSync(server);
  const exe = path.join(server, goos === 'windows' ? 'agent-lsp.exe' : 'agent-lsp');
  console.error(`package-all: ${target}: go build (${goos}/${goarch}, ${version})`);
  run(`building agent-lsp for ${target}`, 'go', ['build', '-trimpath', '-ldflags', `-s -w -X main.version=${version}`, '-o', exe, './cmd/agent-lsp'], {
    cwd: repo, env: { ...process.env, GOOS: goos, GOARCH: goarch, CGO_ENABLED: '0' },
  });
  fs.chmodSync(exe, 0o755);
  const out = path.join(ext, 'dist', `agent-lsp-${target}.vsix`);
  run(`packaging ${target}`, vsce, ['package', '--no-dependencies', '--skip-license', '--target', target, '-o', out], { cwd: ext, stdio: ['ignore', 'ignore', 'inherit'] });
  console.error(`package-all: ${out}`);
}
