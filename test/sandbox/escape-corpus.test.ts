import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { runSandboxed, type SandboxLanguage, type SandboxLimitsInput, type SandboxVerdict } from '../../src/sandbox/index.js';
import type { InferenceServer } from '../../src/testing/index.js';
import { startServers } from '../support/loopback-model.js';
import { escapeTargets, filesLeft, processesLeft } from './host-state.js';

/** What a hostile program may know of the host, to aim at it. */
interface Host {
  readonly marker: string;
  readonly port: number;
  readonly pid: number;
  readonly secret: string;
  readonly abstractSocket: string;
  readonly cwd: string;
}

interface Hostile {
  readonly name: string;
  readonly language: SandboxLanguage;
  readonly code: (host: Host) => string;
  readonly status: SandboxVerdict['status'];
  /** What else the verdict must show: the containment, not only the status. */
  readonly check?: (verdict: SandboxVerdict, host: Host) => void;
  readonly limits?: SandboxLimitsInput;
}

// Small caps keep the corpus quick: the point is that each binds, not where it sits.
const LIMITS: SandboxLimitsInput = {
  cpuSeconds: 1,
  wallMs: 5000,
  memoryBytes: 256 * 1024 * 1024,
  processes: 16,
  fileBytes: 1024 * 1024,
  openFiles: 64,
  outputBytes: 4096,
  workBytes: 4 * 1024 * 1024,
};
const NODE_LIMITS: SandboxLimitsInput = { ...LIMITS, memoryBytes: 1024 * 1024 * 1024 };
// A loaded machine gives a spinning program less than a core: a CPU cap's case gets wall time to reach it.
const CPU_BOUND: SandboxLimitsInput = { ...LIMITS, wallMs: 10_000 };

const stderrMatches =
  (pattern: RegExp) =>
  (verdict: SandboxVerdict): void =>
    assert.match(verdict.stderr, pattern);

const pyWritesEverywhere = (host: Host): string =>
  `
import json
for path in ${JSON.stringify(escapeTargets(host.marker))}:
    try:
        open(path, 'w').write('escaped')
        print('wrote', path)
    except OSError as e:
        print('refused', path, e.errno)
`;

const corpus: Hostile[] = [
  // The network: none at all, not even the host's loopback.
  {
    name: 'python connects to a gymnast server on the host loopback',
    language: 'python',
    code: (host) => `import socket\nsocket.create_connection(('127.0.0.1', ${host.port}), timeout=1)`,
    status: 'runtime-error',
    check: stderrMatches(/ConnectionRefusedError/),
  },
  {
    name: 'python fetches from the gymnast server with urllib',
    language: 'python',
    code: (host) => `import urllib.request\nprint(urllib.request.urlopen('http://127.0.0.1:${host.port}/v1/models', timeout=1).read())`,
    status: 'runtime-error',
    check: stderrMatches(/Connection refused/),
  },
  {
    name: 'python resolves a name (DNS)',
    language: 'python',
    code: () => `import socket\nprint(socket.getaddrinfo('example.com', 80))`,
    status: 'runtime-error',
    check: stderrMatches(/gaierror/),
  },
  {
    name: 'python reaches a public address (TCP and UDP)',
    language: 'python',
    code: () =>
      `import socket\ntry:\n    socket.create_connection(('1.1.1.1', 53), timeout=1)\nexcept OSError as e:\n    print('tcp', e.errno)\nu = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\nu.sendto(b'x', ('8.8.8.8', 53))`,
    status: 'runtime-error',
    check: (verdict) => {
      assert.match(verdict.stdout, /tcp 101/);
      assert.match(verdict.stderr, /Network is unreachable/);
    },
  },
  {
    name: 'python connects to an abstract unix socket the host listens on',
    language: 'python',
    code: (host) => `import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect('\\0${host.abstractSocket}')`,
    status: 'runtime-error',
    check: stderrMatches(/ConnectionRefusedError/),
  },
  {
    name: 'node fetches from the gymnast server',
    language: 'node',
    code: (host) => `fetch('http://127.0.0.1:${host.port}/v1/models').then((reply) => console.log(reply.status));`,
    status: 'runtime-error',
    check: stderrMatches(/ECONNREFUSED|fetch failed/),
  },
  {
    name: 'node resolves a name (DNS)',
    language: 'node',
    code: () => `require('dns').lookup('example.com', (error, address) => { if (error) throw error; console.log(address); });`,
    status: 'runtime-error',
    check: stderrMatches(/ENOTFOUND|EAI_AGAIN/),
  },
  // The host's files, other processes and secrets: not there to read.
  {
    name: 'python reads /etc/passwd and /root',
    language: 'python',
    code: () => `import os\nprint(os.path.exists('/etc'), os.path.exists('/root'))\nopen('/etc/passwd').read()`,
    status: 'runtime-error',
    check: (verdict) => {
      assert.match(verdict.stdout, /False False/);
      assert.match(verdict.stderr, /FileNotFoundError/);
    },
  },
  {
    name: "python reads the host's working folder by absolute path",
    language: 'python',
    code: (host) => `print(open('${host.cwd}/package.json').read())`,
    status: 'runtime-error',
    check: stderrMatches(/FileNotFoundError/),
  },
  {
    name: "python lists /proc and reads the host process's environment",
    language: 'python',
    code: (host) =>
      `import os\npids = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\nprint('pids', pids)\nprint('host visible', os.path.exists('/proc/${host.pid}/environ'))\nprint(open('/proc/1/environ', 'rb').read())`,
    status: 'ok',
    check: (verdict, host) => {
      const pids = JSON.parse(/pids (\[.*\])/.exec(verdict.stdout)![1]!) as number[];
      assert.ok(pids.length <= 3, `the sandbox sees only its own processes, saw ${pids}`);
      assert.match(verdict.stdout, /host visible False/);
      assert.ok(!verdict.stdout.includes(host.secret));
    },
  },
  {
    name: 'python dumps its environment for secrets',
    language: 'python',
    code: () => `import os\nprint(dict(os.environ))`,
    status: 'ok',
    check: (verdict, host) => {
      assert.ok(!verdict.stdout.includes(host.secret));
      assert.ok(!verdict.stdout.includes('GYMNAST_ESCAPE_SECRET'));
    },
  },
  {
    name: 'node dumps process.env for secrets',
    language: 'node',
    code: () => `console.log(JSON.stringify(process.env))`,
    status: 'ok',
    check: (verdict, host) => assert.ok(!verdict.stdout.includes(host.secret)),
  },
  {
    name: 'python reads /sys and the kernel config',
    language: 'python',
    code: () => `import os\nprint(os.listdir('/sys/class/net'))`,
    status: 'runtime-error',
    check: stderrMatches(/FileNotFoundError/),
  },
  // Writing outside the work folder, directly or through links.
  {
    name: 'python writes to /tmp, /var/tmp, /dev/shm, the host cwd, /root and /',
    language: 'python',
    code: pyWritesEverywhere,
    status: 'ok',
    check: (verdict) =>
      assert.doesNotMatch(verdict.stdout, /wrote (?!\/tmp\/|\/dev\/shm\/)/, "only the sandbox's own tmpfs (/tmp is the work folder, /dev/shm) take a file"),
  },
  {
    name: 'python writes into /usr',
    language: 'python',
    code: () => `open('/usr/bin/gymnast-escape', 'w').write('x')`,
    status: 'runtime-error',
    check: stderrMatches(/Read-only file system/),
  },
  {
    name: 'node writes into /usr and the host cwd',
    language: 'node',
    code: (host) =>
      `const fs = require('fs'); for (const path of ['/usr/lib/gymnast-escape', '${host.cwd}/${host.marker}']) { try { fs.writeFileSync(path, 'x'); console.log('wrote', path); } catch (error) { console.log('refused', path, error.code); } }`,
    status: 'ok',
    check: (verdict) => assert.doesNotMatch(verdict.stdout, /wrote/),
  },
  {
    name: 'python follows a symlink out of the work folder',
    language: 'python',
    code: () =>
      `import os\nos.symlink('/etc/passwd', 'passwd')\nos.symlink('/proc/1/root/root', 'rootdir')\nprint(os.path.exists('rootdir'))\nopen('passwd').read()`,
    status: 'runtime-error',
    check: (verdict) => {
      assert.match(verdict.stdout, /False/);
      assert.match(verdict.stderr, /FileNotFoundError/);
    },
  },
  {
    name: 'python symlinks its work folder onto a host path and writes through it',
    language: 'python',
    code: (host) => `import os\nos.symlink('${host.cwd}', 'out')\nopen('out/${host.marker}', 'w').write('x')`,
    status: 'runtime-error',
    check: stderrMatches(/FileNotFoundError/),
  },
  {
    name: 'python hard-links the interpreter into the work folder',
    language: 'python',
    code: () => `import os\nos.link('/usr/bin/python3', 'python3')`,
    status: 'runtime-error',
    check: stderrMatches(/Invalid cross-device link|Operation not permitted/),
  },
  {
    name: 'python makes a user namespace, chroots and mounts to gain privileges',
    language: 'python',
    code: () =>
      `import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nprint('unshare', libc.unshare(0x10000000), ctypes.get_errno())\nprint('mount', libc.mount(b'none', b'/usr', b'tmpfs', 0, None), ctypes.get_errno())\nos.chroot('/work')`,
    status: 'runtime-error',
    check: (verdict) => {
      assert.match(verdict.stdout, /unshare -1 (1|28)\b/);
      assert.match(verdict.stdout, /mount -1 1\b/);
      assert.match(verdict.stderr, /PermissionError/);
    },
  },
  // Exhausting the machine: each cap binds.
  {
    name: 'python fork bomb stops at the process cap',
    language: 'python',
    code: () => `import os, time\nwhile True:\n    if os.fork() == 0:\n        time.sleep(60)\n        os._exit(0)`,
    status: 'runtime-error',
    check: stderrMatches(/BlockingIOError|Resource temporarily unavailable/),
  },
  {
    name: 'node spawn bomb stops at the process cap',
    language: 'node',
    code: () =>
      `const { spawnSync, spawn } = require('child_process'); let n = 0; for (;;) { const child = spawn('/usr/bin/sleep', ['60'], { stdio: 'ignore' }); const error = child.pid === undefined; if (error) { console.log('stopped after', n); process.exit(3); } n++; if (n > 500) break; }`,
    status: 'runtime-error',
    check: (verdict) => assert.match(verdict.stdout, /stopped after \d+/),
  },
  {
    name: 'python memory bomb stops at the address-space cap',
    language: 'python',
    code: () => `chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 1024 * 1024))`,
    status: 'memory',
  },
  {
    name: 'python forks, then every process bombs memory: each stops at its own cap',
    language: 'python',
    code: () =>
      `import os\nfor _ in range(6):\n    if os.fork() == 0:\n        break\nchunks = []\nwhile True:\n    chunks.append(bytearray(16 * 1024 * 1024))`,
    status: 'memory',
    limits: { ...LIMITS, memoryBytes: 128 * 1024 * 1024 },
  },
  {
    name: 'node memory bomb stops at the address-space cap',
    language: 'node',
    code: () => `const chunks = []; for (;;) chunks.push(new Array(1e6).fill(1.5));`,
    status: 'memory',
    limits: NODE_LIMITS,
  },
  {
    name: 'python CPU spin stops at the CPU cap',
    language: 'python',
    code: () => `while True:\n    pass`,
    status: 'timeout',
    check: (verdict) => assert.equal(verdict.limit, 'cpu'),
    limits: CPU_BOUND,
  },
  {
    name: 'node CPU spin stops at the CPU cap',
    language: 'node',
    code: () => `for (;;) {}`,
    status: 'timeout',
    check: (verdict) => assert.equal(verdict.limit, 'cpu'),
    limits: { ...NODE_LIMITS, wallMs: 10_000 },
  },
  {
    name: 'python ignores SIGXCPU and spins on: stopped at the CPU cap all the same',
    language: 'python',
    code: () => `import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True:\n    pass`,
    status: 'timeout',
    check: (verdict) => assert.deepEqual([verdict.limit, verdict.signal], ['cpu', 'SIGKILL']),
    limits: CPU_BOUND,
  },
  {
    name: 'python sleeps forever, ignoring SIGTERM',
    language: 'python',
    code: () => `import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(3600)`,
    status: 'timeout',
    check: (verdict) => assert.equal(verdict.limit, 'wall'),
    limits: { ...LIMITS, wallMs: 1000 },
  },
  {
    name: 'python floods stdout',
    language: 'python',
    code: () => `while True:\n    print('x' * 1000)`,
    status: 'output-limit',
    check: (verdict) => {
      assert.ok(verdict.truncated.stdout);
      assert.match(verdict.stdout, /\[gymnast: output truncated at 4096 bytes\]\n$/);
      assert.ok(verdict.stdout.length < 4096 + 100);
    },
  },
  {
    name: 'node floods stderr',
    language: 'node',
    code: () => `for (;;) process.stderr.write('y'.repeat(1000));`,
    status: 'output-limit',
    check: (verdict) => assert.ok(verdict.truncated.stderr),
    limits: NODE_LIMITS,
  },
  // Outliving the run or hitting its parent.
  {
    name: 'python signals its parent, the sandbox init and the host gymnast',
    language: 'python',
    code: (host) =>
      `import os, signal\nfor target in (os.getppid(), 1):\n    os.kill(target, signal.SIGKILL)\nprint('still here')\nos.kill(${host.pid}, signal.SIGKILL)`,
    status: 'runtime-error',
    check: (verdict) => {
      assert.match(verdict.stdout, /still here/);
      assert.match(verdict.stderr, /ProcessLookupError/);
    },
  },
  {
    name: "a child kills every process it can see (kill -1): the program, its namespace's init, lives on",
    language: 'python',
    code: () => `import os, signal\nif os.fork() == 0:\n    os.kill(-1, signal.SIGKILL)\n    os._exit(0)\nos.wait()\nprint('survived')`,
    status: 'ok',
    check: (verdict) => assert.equal(verdict.stdout, 'survived\n'),
  },
  {
    name: 'python ptraces every process it can see, to run code outside its caps',
    language: 'python',
    code: () =>
      `import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\npids = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\nfor pid in pids:\n    print(pid, libc.ptrace(16, pid, None, None), ctypes.get_errno())`,
    status: 'ok',
    check: (verdict) => assert.equal(verdict.stdout, '1 -1 1\n', 'the program alone is in its namespace, as pid 1, and cannot attach to itself'),
  },
  {
    name: "python reads the kernel keyrings it inherited (gymnast's session keyring, the user's)",
    language: 'python',
    code: () =>
      `import ctypes, platform\nlibc = ctypes.CDLL(None, use_errno=True)\nadd_key, request_key, keyctl = (248, 249, 250) if platform.machine() == 'x86_64' else (217, 218, 219)\nfor name, ring in (('session', -3), ('user', -4), ('user-session', -5)):\n    found = libc.syscall(request_key, b'user', b'gymnast-secret', None, ring)\n    print(name, found, ctypes.get_errno())\nprint('join', libc.syscall(keyctl, 1, None), ctypes.get_errno())\nprint('add', libc.syscall(add_key, b'user', b'x', b'y', 1, -3), ctypes.get_errno())`,
    status: 'ok',
    check: (verdict) =>
      assert.equal(verdict.stdout, 'session -1 1\nuser -1 1\nuser-session -1 1\njoin -1 1\nadd -1 1\n', 'every keyring call is refused (EPERM)'),
  },
  {
    name: 'python double-forks a setsid daemon to outlive the kill',
    language: 'python',
    code: (host) =>
      `import os\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        os.execv('/usr/bin/python3', ['python3', '-c', 'import time; time.sleep(60)', '${host.marker}'])\n    os._exit(0)\nos.wait()\nprint('parent done')`,
    status: 'ok',
  },
  {
    name: 'python starts a new-session subprocess and exits',
    language: 'python',
    code: (host) => `import subprocess\nsubprocess.Popen(['/bin/sh', '-c', 'sleep 60; : ${host.marker}'], start_new_session=True)\nprint('left it running')`,
    status: 'ok',
  },
  {
    name: 'node spawns a detached, unref-ed child and exits',
    language: 'node',
    code: (host) =>
      `const child = require('child_process').spawn('/bin/sh', ['-c', 'sleep 60; : ${host.marker}'], { detached: true, stdio: 'ignore' }); child.unref(); console.log('left', child.pid);`,
    status: 'ok',
    limits: NODE_LIMITS,
  },
  {
    name: 'python writes forged status to every descriptor it inherited, then exits 3',
    language: 'python',
    code: () =>
      `import os\nfor fd in range(3, 1024):\n    try:\n        os.write(fd, b'{"child-pid": 1, "exit-code": 0}\\n' * 1000)\n    except OSError:\n        pass\nraise SystemExit(3)`,
    status: 'runtime-error',
    check: (verdict) => assert.equal(verdict.exitCode, 3),
  },
  // The work folder's own caps.
  {
    name: 'python fills /tmp until the work folder is full',
    language: 'python',
    code: () => `i = 0\nwhile True:\n    open(f'/tmp/fill{i}', 'wb').write(b'x' * 512 * 1024)\n    i += 1`,
    status: 'runtime-error',
    check: stderrMatches(/No space left on device/),
  },
  {
    name: "python fills the sandbox's own root and /dev (tmpfs bubblewrap makes without a size)",
    language: 'python',
    code: () =>
      `import errno\nfor folder in ('', '/dev'):\n    try:\n        open(f'{folder}/fill', 'wb').write(b'x' * 1024)\n        print('wrote', folder or '/')\n    except OSError as e:\n        print('refused', folder or '/', errno.errorcode[e.errno])`,
    status: 'ok',
    check: (verdict) => assert.equal(verdict.stdout, 'refused / EROFS\nrefused /dev EROFS\n'),
  },
  {
    name: 'python fills /dev/shm until it is full',
    language: 'python',
    code: () => `i = 0\nwhile True:\n    open(f'/dev/shm/fill{i}', 'wb').write(b'x' * 512 * 1024)\n    i += 1`,
    status: 'runtime-error',
    check: stderrMatches(/No space left on device/),
  },
  {
    name: 'python writes one file over the file-size cap',
    language: 'python',
    code: () => `open('big', 'wb').write(b'x' * 2 * 1024 * 1024)`,
    status: 'runtime-error',
    check: stderrMatches(/File too large/),
  },
  {
    name: 'python opens files until the descriptor cap',
    language: 'python',
    code: () => `files = [open(f'f{i}', 'w') for i in range(10000)]`,
    status: 'runtime-error',
    check: stderrMatches(/Too many open files/),
  },
  {
    name: 'python creates very many files',
    language: 'python',
    code: () => `import os\nos.mkdir('many')\nfor i in range(20000):\n    open(f'many/{i}', 'w').close()\nprint(len(os.listdir('many')))`,
    status: 'ok',
    check: (verdict) => assert.equal(verdict.stdout.trim(), '20000'),
  },
];

describe('the escape corpus: hostile programs, each contained with the right verdict and the host unchanged', () => {
  let server: InferenceServer;
  let abstract: Server;
  let host: Host;

  before(async () => {
    server = (await startServers(1))[0]!;
    const marker = `gymnast-escape-${randomBytes(6).toString('hex')}`;
    abstract = createServer();
    await new Promise<void>((resolve) => abstract.listen(`\0${marker}`, resolve));
    const secret = `sekrit-${randomBytes(8).toString('hex')}`;
    process.env.GYMNAST_ESCAPE_SECRET = secret;
    host = { marker, port: Number(new URL(server.url).port), pid: process.pid, secret, abstractSocket: marker, cwd: process.cwd() };
  });

  after(async () => {
    delete process.env.GYMNAST_ESCAPE_SECRET;
    abstract.close();
    await server.close();
  });

  it(`holds ${corpus.length} programs (at least 30)`, () => assert.ok(corpus.length >= 30));

  for (const hostile of corpus) {
    it(hostile.name, async () => {
      const verdict = await runSandboxed({
        language: hostile.language,
        code: hostile.code(host),
        limits: hostile.limits ?? (hostile.language === 'node' ? NODE_LIMITS : LIMITS),
      });
      assert.equal(verdict.status, hostile.status, `${verdict.status}: ${verdict.stderr.slice(-400)}`);
      assert.ok(verdict.sandboxed);
      hostile.check?.(verdict, host);
      assert.deepEqual(processesLeft(host.marker), [], 'no process outlives its run');
      assert.deepEqual(filesLeft(host.marker), [], 'no file outside the work folder');
      assert.equal(server.requests.length, 0, 'the host server never heard from the sandbox');
    });
  }

  it('keeps a host port closed to the host while a sandbox listens on it', async () => {
    const port = 40_000 + Math.floor(Math.random() * 20_000);
    let done = false;
    const running = runSandboxed({
      language: 'python',
      code: `import socket, time\ns = socket.socket()\ns.bind(('0.0.0.0', ${port}))\ns.listen()\nprint('listening', flush=True)\ntime.sleep(60)`,
      limits: { ...LIMITS, wallMs: 3000 },
    }).finally(() => {
      done = true;
    });
    const reached = (): Promise<boolean> =>
      new Promise((resolve) => {
        const socket = new Socket();
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
        socket.connect(port, '127.0.0.1');
      });
    // The host tries the port all the while the sandbox runs, so some tries fall after it listens.
    let tries = 0;
    while (!done) {
      assert.equal(await reached(), false, 'the host reached the port the sandbox listened on');
      tries++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const verdict = await running;
    assert.equal(verdict.status, 'timeout');
    assert.match(verdict.stdout, /listening/);
    assert.ok(tries > 5);
  });
});
