/**
 * The libraries' opaque types (`kubernetes.URL`, `net.IP`, `net.CIDR`, `kubernetes.Quantity`, `kubernetes.Semver`,
 * `kubernetes.NamedFormat`) as protobuf messages with one string field holding the canonical text, so that
 * `@bufbuild/cel` can dispatch methods on them, compare them with `==` and name them in `type(x)`.
 */
import { objectType, type CelObjectType, type CelValue } from '@bufbuild/cel';
import { create, createFileRegistry, type DescMessage, type Registry } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema, FieldDescriptorProto_Label, FieldDescriptorProto_Type } from '@bufbuild/protobuf/wkt';
import { isReflectMessage, reflect, type ReflectMessage } from '@bufbuild/protobuf/reflect';

const TYPES: Record<string, string[]> = {
  kubernetes: ['URL', 'Quantity', 'Semver', 'NamedFormat'],
  net: ['IP', 'CIDR'],
};

export const OPAQUE_REGISTRY: Registry = createFileRegistry(
  create(FileDescriptorSetSchema, {
    file: Object.entries(TYPES).map(([pkg, names]) => ({
      name: `kubegen_cel_${pkg}.proto`,
      package: pkg,
      syntax: 'proto3',
      messageType: names.map((name) => ({
        name,
        field: [{ name: 'value', number: 1, type: FieldDescriptorProto_Type.STRING, label: FieldDescriptorProto_Label.OPTIONAL, jsonName: 'value' }],
      })),
    })),
  }),
);

/** One opaque type: its CEL type, and wrapping/unwrapping of the canonical text. */
export interface Opaque {
  readonly type: CelObjectType;
  wrap(text: string): ReflectMessage;
  text(v: CelValue): string;
}

export function opaqueType(typeName: string): Opaque {
  const desc = OPAQUE_REGISTRY.getMessage(typeName) as DescMessage;
  return {
    type: objectType(desc),
    wrap: (text) => reflect(desc, create(desc, { value: text } as never)),
    text: (v) => {
      if (!isReflectMessage(v) || v.desc.typeName !== typeName) throw new Error('no such overload');
      return (v.message as unknown as { value: string }).value;
    },
  };
}
