import { BlockList, isIP } from 'node:net';

/**
 * Where notifications may go (NOTIFY_ALLOWED_HOSTS). By default an address of
 * the platform's own networks (loopback, private, link-local, unique-local,
 * unspecified, shared) is refused, so that nobody can use the platform to
 * reach them; hosts and CIDRs listed in NOTIFY_ALLOWED_HOSTS are let through.
 */

export interface DestinationPolicy {
  /** Host names allowed whatever they resolve to (lower case). */
  hosts: ReadonlySet<string>;
  /** Addresses and networks allowed. */
  allowed: BlockList;
  /** Whether anything was listed (for the refusal's hint). */
  listed: boolean;
}

const INTERNAL = new BlockList();
for (const [net, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16]] as const) {
  INTERNAL.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10]] as const) INTERNAL.addSubnet(net, prefix, 'ipv6');

/** Reads NOTIFY_ALLOWED_HOSTS: host names, addresses and CIDRs, separated by commas; what is not an address or a CIDR is a host name. */
export function parseDestinationPolicy(text: string): DestinationPolicy {
  const hosts = new Set<string>();
  const allowed = new BlockList();
  const entries = text.split(',').map((e) => e.trim()).filter((e) => e !== '');
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const family = isIP(address ?? '');
    if (family !== 0 && prefix === undefined) allowed.addAddress(address as string, family === 4 ? 'ipv4' : 'ipv6');
    else if (family !== 0 && /^\d{1,3}$/.test(prefix ?? '') && Number(prefix) <= (family === 4 ? 32 : 128)) allowed.addSubnet(address as string, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
    else if (/^[a-z0-9.-]+$/i.test(entry)) hosts.add(entry.toLowerCase());
    else throw new Error(`not a host, address or CIDR: ${entry}`);
  }
  return { hosts, allowed, listed: entries.length > 0 };
}

/** An IPv4 address written as IPv6 (::ffff:a.b.c.d) is judged as IPv4. */
function normalized(address: string): { address: string; type: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1] as string, type: 'ipv4' };
  return { address, type: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** The host as a URL names it, without IPv6 brackets. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Why notifications may not go to `address` reached through `host`, or undefined when they may. */
export function refusedDestination(policy: DestinationPolicy, host: string, address: string): string | undefined {
  if (policy.hosts.has(bareHost(host).toLowerCase())) return undefined;
  const { address: a, type } = normalized(address);
  if (policy.allowed.check(a, type)) return undefined;
  if (INTERNAL.check(a, type)) return `destination not allowed: ${bareHost(host)} is an internal address (${a}); NOTIFY_ALLOWED_HOSTS lists the ones allowed`;
  return undefined;
}
