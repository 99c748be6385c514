/** The subset of apiextensions/v1 JSONSchemaProps a structural CRD schema uses, with Kubernetes' own key names. */

export interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
}

export interface JSONSchemaProps {
  readonly type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  readonly description?: string;
  readonly properties?: Readonly<Record<string, JSONSchemaProps>>;
  readonly additionalProperties?: JSONSchemaProps | boolean;
  readonly items?: JSONSchemaProps;
  readonly required?: readonly string[];
  readonly enum?: readonly unknown[];
  readonly pattern?: string;
  readonly format?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: boolean;
  readonly exclusiveMaximum?: boolean;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  readonly default?: unknown;
  readonly nullable?: boolean;
  readonly allOf?: readonly JSONSchemaProps[];
  readonly anyOf?: readonly JSONSchemaProps[];
  readonly oneOf?: readonly JSONSchemaProps[];
  readonly not?: JSONSchemaProps;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
  readonly 'x-kubernetes-validations'?: readonly ValidationRule[];
  readonly 'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
}

export interface CrdVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly schema?: { readonly openAPIV3Schema?: JSONSchemaProps };
  readonly subresources?: { readonly status?: Readonly<Record<string, never>> };
}

export interface CrdSpec {
  readonly group: string;
  readonly scope: 'Namespaced' | 'Cluster';
  readonly names: {
    readonly plural: string;
    readonly singular?: string;
    readonly kind: string;
    readonly listKind?: string;
    readonly shortNames?: readonly string[];
  };
  readonly versions: readonly CrdVersion[];
}
