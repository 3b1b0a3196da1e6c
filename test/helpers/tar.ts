import { Header } from 'tar';

export interface TarMember {
  path: string;
  type?: 'File' | 'Directory' | 'SymbolicLink' | 'Link' | 'CharacterDevice' | 'BlockDevice' | 'FIFO';
  body?: string | Buffer;
  linkpath?: string;
}

/**
 * A tar built header by header, so it can hold entries no well-behaved tool writes (links out, devices, FIFOs):
 * the members, the two zero end blocks and `trailing` more zero bytes. Uncompressed: the caller gzips it.
 * `ownerless`: headers without uid and gid.
 */
export function handBuiltTar(members: TarMember[], options: { trailing?: number; ownerless?: boolean } = {}): Buffer {
  const blocks: Buffer[] = [];
  for (const m of members) {
    const body = typeof m.body === 'string' ? Buffer.from(m.body) : (m.body ?? Buffer.alloc(0));
    const type = m.type ?? 'File';
    const block = Buffer.alloc(512);
    new Header({
      path: m.path,
      type,
      size: type === 'File' ? body.length : 0,
      mode: type === 'Directory' ? 0o755 : 0o644,
      mtime: new Date(0),
      linkpath: m.linkpath,
      ...(options.ownerless ? {} : { uid: 0, gid: 0 }),
    }).encode(block, 0);
    blocks.push(block);
    if (type === 'File' && body.length) blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024 + (options.trailing ?? 0)));
  return Buffer.concat(blocks);
}
