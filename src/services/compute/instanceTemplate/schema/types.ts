/** Wire type of one field of the InstanceTemplate schema (proto JSON mapping). */
export type WireType = 'string' | 'bool' | 'int32' | 'uint32' | 'int64' | 'uint64' | 'double' | 'float' | 'enum' | 'message';

export interface FieldSpec {
  t: WireType;
  /** For `message`: the message name (a key of MESSAGES). */
  message?: string;
  /** For `enum`: the accepted values (the proto's, without its UNDEFINED_ placeholder). */
  values?: readonly string[];
  repeated?: true;
  /** A map of string to the field's type. */
  map?: true;
}

export type MessageSpec = Record<string, FieldSpec>;
