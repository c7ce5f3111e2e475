import autocannon from 'autocannon';
import fs from 'node:fs';
const pid = Number(process.argv[2]);
const auth = `Basic ${Buffer.from(fs.readFileSync('/tmp/zz-secret', 'utf8')).toString('base64')}`;
const T = 'http://127.0.0.1:18099/auth/realms/opencity/protocol/openid-connect/token';
const ticks = () => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return Number(f[11]) + Number(f[12]); };
const cases = [['health', { url: 'http://127.0.0.1:18099/health' }], ['token', { url: T, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth }, body: 'grant_type=client_credentials' }]];
for (let round = 0; round < 2; round++) for (const [name, opts] of cases) {
  const before = ticks();
  const r = await autocannon({ connections: 32, amount: 20000, ...opts });
  const cpuMs = (ticks() - before) * 10;
  console.log(name.padEnd(7), 'requests', r.requests.total, 'server CPU µs/request', Math.round(cpuMs * 1000 / r.requests.total), '=> /s per core', Math.round(r.requests.total / (cpuMs / 1000)), JSON.stringify(Object.keys(r.statusCodeStats)));
}
