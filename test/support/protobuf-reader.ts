/**
 * A minimal protobuf wire-format reader (https://protobuf.dev/programming-guides/encoding/):
 * enough to walk the fields of a message and decode the scalar kinds OTLP uses. Fields are
 * read in any order and unknown ones are skipped, as the format requires.
 */
export class ProtobufReader {
  private position = 0;

  constructor(private readonly bytes: Uint8Array) {}

  done(): boolean {
    return this.position >= this.bytes.length;
  }

  /** The next field's number and wire type. */
  tag(): { field: number; wireType: number } {
    const key = Number(this.varint());
    return { field: key >>> 3, wireType: key & 7 };
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.position >= this.bytes.length) throw new Error('protobuf: truncated varint');
      const byte = this.bytes[this.position++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw new Error('protobuf: varint too long');
    }
  }

  /** A length-delimited field: bytes, a string or an embedded message. */
  lengthDelimited(): Uint8Array {
    const length = Number(this.varint());
    if (this.position + length > this.bytes.length) throw new Error('protobuf: truncated field');
    const slice = this.bytes.subarray(this.position, this.position + length);
    this.position += length;
    return slice;
  }

  string(): string {
    return new TextDecoder().decode(this.lengthDelimited());
  }

  fixed64(): bigint {
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.position, 8);
    this.position += 8;
    return view.getBigUint64(0, true);
  }

  fixed32(): number {
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.position, 4);
    this.position += 4;
    return view.getUint32(0, true);
  }

  double(): number {
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.position, 8);
    this.position += 8;
    return view.getFloat64(0, true);
  }

  /** Skips a field of this wire type. */
  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.position += 8;
    else if (wireType === 2) this.lengthDelimited();
    else if (wireType === 5) this.position += 4;
    else throw new Error(`protobuf: unsupported wire type ${wireType}`);
  }
}

/** Calls `onField` for each field of a message; a handler returning false leaves the field to be skipped. */
export function readMessage(bytes: Uint8Array, onField: (field: number, reader: ProtobufReader, wireType: number) => boolean): void {
  const reader = new ProtobufReader(bytes);
  while (!reader.done()) {
    const { field, wireType } = reader.tag();
    if (!onField(field, reader, wireType)) reader.skip(wireType);
  }
}
