import autocannon from 'autocannon';
import fs from 'node:fs';
const auth = `Basic ${Buffer.from(fs.readFileSync('/tmp/zz-secret', 'utf8')).toString('base64')}`;
const T = 'http://127.0.0.1:18099/auth/realms/opencity/protocol/openid-connect/token';
for (let i = 0; i < 2; i++) {
  const r = await autocannon({ connections: 32, duration: 5, url: T, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth }, body: 'grant_type=client_credentials' });
  console.log(process.env.RL, Math.round(r.requests.average), 'rps p50', r.latency.p50, 'p99', r.latency.p99, JSON.stringify(Object.keys(r.statusCodeStats)));
}
