import { isIP } from 'node:net';

/**
 * Writes small MaxMind DB files (format 2.0, an IPv6 tree holding IPv4 under
 * ::/96, 24-bit records) for tests of IP location: the city databases an
 * operator points IP_LOCATION_DB at are far too large to ship with the tests.
 */

export type MmdbValue = string | number | boolean | MmdbValue[] | { [key: string]: MmdbValue };

/** A network (`203.0.113.0/24`, `2001:db8::/32`) and the record its addresses resolve to. */
export interface MmdbNetwork {
  network: string;
  record: { [key: string]: MmdbValue };
}

const METADATA_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');
const TYPE = { string: 2, double: 3, uint16: 5, uint32: 6, map: 7, uint64: 9, array: 11, boolean: 14 } as const;

function control(type: number, size: number): Buffer {
  const extended = type > 7;
  const head = (extended ? 0 : type) << 5;
  const extra = extended ? [type - 7] : [];
  if (size < 29) return Buffer.from([head | size, ...extra]);
  if (size < 285) return Buffer.from([head | 29, ...extra, size - 29]);
  if (size < 65_821) return Buffer.from([head | 30, ...extra, (size - 285) >> 8, (size - 285) & 0xff]);
  const rest = size - 65_821;
  return Buffer.from([head | 31, ...extra, (rest >> 16) & 0xff, (rest >> 8) & 0xff, rest & 0xff]);
}

const unsigned = (type: number, value: number | bigint): Buffer => {
  const bytes: number[] = [];
  for (let v = BigInt(value); v > 0n; v >>= 8n) bytes.unshift(Number(v & 0xffn));
  return Buffer.concat([control(type, bytes.length), Buffer.from(bytes)]);
};

function encode(value: MmdbValue): Buffer {
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([control(TYPE.string, text.length), text]);
  }
  if (typeof value === 'boolean') return control(TYPE.boolean, value ? 1 : 0);
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0 && value <= 0xffffffff) return unsigned(TYPE.uint32, value);
    const double = Buffer.alloc(8);
    double.writeDoubleBE(value);
    return Buffer.concat([control(TYPE.double, 8), double]);
  }
  if (Array.isArray(value)) return Buffer.concat([control(TYPE.array, value.length), ...value.map(encode)]);
  const entries = Object.entries(value);
  return Buffer.concat([control(TYPE.map, entries.length), ...entries.flatMap(([k, v]) => [encode(k), encode(v)])]);
}

/** The 128 bits of a network's address (IPv4 as ::a.b.c.d) and its prefix length in that tree. */
function bitsOf(network: string): { bits: number[]; length: number } {
  const [address = '', prefix = ''] = network.split('/');
  const version = isIP(address);
  if (version === 0 || !/^\d+$/.test(prefix)) throw new Error(`not a network: ${network}`);
  let bytes: number[];
  if (version === 4) {
    bytes = [...new Array<number>(12).fill(0), ...address.split('.').map(Number)];
  } else {
    const [head = '', tail = ''] = address.split('::');
    const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
    const known = [...groups(head), ...groups(tail)];
    const all = address.includes('::') ? [...groups(head), ...new Array<number>(8 - known.length).fill(0), ...groups(tail)] : known;
    bytes = all.flatMap((g) => [g >> 8, g & 0xff]);
  }
  const bits = bytes.flatMap((b) => [7, 6, 5, 4, 3, 2, 1, 0].map((i) => (b >> i) & 1));
  return { bits, length: Number(prefix) + (version === 4 ? 96 : 0) };
}

type Slot = { node: number } | { data: number } | undefined;

/** A MaxMind DB file's bytes holding `networks` (which must not overlap). */
export function writeMmdb(networks: readonly MmdbNetwork[], databaseType = 'OpenCity-Test-City'): Buffer {
  const nodes: Array<[Slot, Slot]> = [[undefined, undefined]];
  const data: Buffer[] = [];
  let dataSize = 0;
  for (const { network, record } of networks) {
    const encoded = encode(record);
    const offset = dataSize;
    data.push(encoded);
    dataSize += encoded.length;
    const { bits, length } = bitsOf(network);
    let node = 0;
    for (let depth = 0; depth < length; depth++) {
      const side = bits[depth] as 0 | 1;
      const slots = nodes[node] as [Slot, Slot];
      if (depth === length - 1) {
        slots[side] = { data: offset };
        break;
      }
      const next = slots[side];
      if (next && 'data' in next) throw new Error(`${network} lies inside another network`);
      if (next) {
        node = next.node;
      } else {
        nodes.push([undefined, undefined]);
        slots[side] = { node: nodes.length - 1 };
        node = nodes.length - 1;
      }
    }
  }
  const nodeCount = nodes.length;
  const tree = Buffer.alloc(nodeCount * 6);
  const value = (slot: Slot) => (slot === undefined ? nodeCount : 'node' in slot ? slot.node : nodeCount + 16 + slot.data);
  nodes.forEach(([left, right], i) => {
    tree.writeUIntBE(value(left), i * 6, 3);
    tree.writeUIntBE(value(right), i * 6 + 3, 3);
  });
  const metadata = Buffer.concat([
    control(TYPE.map, 9),
    encode('node_count'), unsigned(TYPE.uint32, nodeCount),
    encode('record_size'), unsigned(TYPE.uint16, 24),
    encode('ip_version'), unsigned(TYPE.uint16, 6),
    encode('database_type'), encode(databaseType),
    encode('languages'), encode(['en']),
    encode('binary_format_major_version'), unsigned(TYPE.uint16, 2),
    encode('binary_format_minor_version'), unsigned(TYPE.uint16, 0),
    encode('build_epoch'), unsigned(TYPE.uint64, 1_700_000_000),
    encode('description'), encode({ en: 'IP locations for OpenCity tests' }),
  ]);
  return Buffer.concat([tree, Buffer.alloc(16), ...data, METADATA_MARKER, metadata]);
}
