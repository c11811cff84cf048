import { createRequire } from 'node:module';
import type * as protobuf from 'protobufjs';
import { PROTOS_DIR, type ProtoTypes } from './protos.ts';

/** Well-known types protobuf.js defines itself (their objects carry no file name). */
const WELL_KNOWN: Record<string, string> = {
  Struct: 'struct',
  Value: 'struct',
  ListValue: 'struct',
  NullValue: 'struct',
  FieldMask: 'field_mask',
};

interface FileEntry {
  name: string;
  package: string;
  dependency: Set<string>;
  messageType: unknown[];
  enumType: unknown[];
  service: unknown[];
  extension: unknown[];
}

/**
 * gRPC server reflection (`grpc.reflection.v1` and `v1alpha`, one protocol): the services
 * offered, and the `FileDescriptorProto` of the file defining a symbol or named by file name,
 * with the files it depends on, so `grpcurl` and Postman can list and call the services.
 * Descriptors are made once from the loaded .proto files (protobuf.js's descriptor extension).
 */
export class Reflection {
  readonly #files = new Map<string, FileEntry>();
  readonly #symbols = new Map<string, string>();
  readonly #encoded = new Map<string, Uint8Array>();
  readonly #fileType: protobuf.Type;
  readonly #services: () => string[];

  constructor(types: ProtoTypes, services: () => string[]) {
    const req = createRequire(import.meta.url);
    const pb = req('protobufjs') as typeof protobuf;
    const descriptor = req('protobufjs/ext/descriptor') as { FileDescriptorProto: protobuf.Type };
    this.#fileType = descriptor.FileDescriptorProto;
    this.#services = services;
    const fileOf = (o: protobuf.ReflectionObject): string => {
      if (o.filename) return o.filename.startsWith(PROTOS_DIR) ? o.filename.slice(PROTOS_DIR.length) : o.filename;
      return `google/protobuf/${WELL_KNOWN[o.name] ?? o.name.replace(/[A-Z]/g, (c, i) => (i ? '_' : '') + c.toLowerCase())}.proto`;
    };
    const entry = (o: protobuf.ReflectionObject): FileEntry => {
      const name = fileOf(o);
      let f = this.#files.get(name);
      if (!f) this.#files.set(name, (f = { name, package: o.parent ? o.parent.fullName.slice(1) : '', dependency: new Set(), messageType: [], enumType: [], service: [], extension: [] }));
      return f;
    };
    const depend = (f: FileEntry, on: protobuf.ReflectionObject | null | undefined) => {
      if (on && fileOf(on) !== f.name) f.dependency.add(fileOf(on));
    };
    const typeDeps = (f: FileEntry, t: protobuf.Type) => {
      this.#symbols.set(t.fullName.slice(1), f.name);
      for (const field of t.fieldsArray) depend(f, field.resolvedType);
      for (const nested of t.nestedArray) if (nested instanceof pb.Type) typeDeps(f, nested);
    };
    const walk = (ns: protobuf.NamespaceBase) => {
      for (const o of ns.nestedArray) {
        if (o instanceof pb.Type) {
          const f = entry(o);
          f.messageType.push((o as unknown as { toDescriptor(e: string): unknown }).toDescriptor('proto3'));
          typeDeps(f, o);
        } else if (o instanceof pb.Enum) {
          const f = entry(o);
          f.enumType.push((o as unknown as { toDescriptor(): unknown }).toDescriptor());
          this.#symbols.set(o.fullName.slice(1), f.name);
        } else if (o instanceof pb.Service) {
          const f = entry(o);
          f.service.push((o as unknown as { toDescriptor(): unknown }).toDescriptor());
          this.#symbols.set(o.fullName.slice(1), f.name);
          for (const m of o.methodsArray) {
            this.#symbols.set(`${o.fullName.slice(1)}.${m.name}`, f.name);
            m.resolve();
            depend(f, m.resolvedRequestType);
            depend(f, m.resolvedResponseType);
          }
        } else if (o instanceof pb.Field) {
          const f = entry(o);
          f.extension.push((o as unknown as { toDescriptor(e: string): unknown }).toDescriptor('proto3'));
          depend(f, o.resolvedType);
          depend(f, (o as unknown as { extensionField?: { parent: protobuf.ReflectionObject } }).extensionField?.parent ?? null);
        } else if ((o as protobuf.NamespaceBase).nestedArray) walk(o as protobuf.NamespaceBase);
      }
    };
    walk(types.root);
  }

  /** The encoded FileDescriptorProto of a file. */
  #file(name: string): Uint8Array {
    let bytes = this.#encoded.get(name);
    if (!bytes) {
      const f = this.#files.get(name)!;
      const msg = this.#fileType.create({
        name: f.name,
        package: f.package,
        dependency: [...f.dependency],
        messageType: f.messageType,
        enumType: f.enumType,
        service: f.service,
        extension: f.extension,
        syntax: 'proto3',
      });
      this.#encoded.set(name, (bytes = this.#fileType.encode(msg).finish()));
    }
    return bytes;
  }

  /** The file and every file it depends on, the file first. */
  #withDependencies(name: string): Uint8Array[] {
    const order: string[] = [];
    const visit = (n: string) => {
      if (order.includes(n) || !this.#files.has(n)) return;
      order.push(n);
      for (const d of this.#files.get(n)!.dependency) visit(d);
    };
    visit(name);
    return order.map((n) => this.#file(n));
  }

  /** One ServerReflectionResponse (plain object) for one ServerReflectionRequest. */
  answer(req: Record<string, any>): Record<string, unknown> {
    const out: Record<string, unknown> = { validHost: req.host ?? '', originalRequest: req };
    const notFound = (what: string) => ({ ...out, errorResponse: { errorCode: 5, errorMessage: `${what} not found` } });
    if (req.listServices !== undefined) return { ...out, listServicesResponse: { service: this.#services().map((name) => ({ name })) } };
    if (req.fileByFilename !== undefined) {
      return this.#files.has(req.fileByFilename) ? { ...out, fileDescriptorResponse: { fileDescriptorProto: this.#withDependencies(req.fileByFilename) } } : notFound(`File ${req.fileByFilename}`);
    }
    if (req.fileContainingSymbol !== undefined) {
      const file = this.#symbols.get(String(req.fileContainingSymbol).replace(/^\./, ''));
      return file ? { ...out, fileDescriptorResponse: { fileDescriptorProto: this.#withDependencies(file) } } : notFound(`Symbol ${req.fileContainingSymbol}`);
    }
    if (req.allExtensionNumbersOfType !== undefined) return { ...out, allExtensionNumbersResponse: { baseTypeName: req.allExtensionNumbersOfType, extensionNumber: [] } };
    return { ...out, errorResponse: { errorCode: 12, errorMessage: 'This reflection request is not supported.' } };
  }
}
