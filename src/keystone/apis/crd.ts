/**
 * A CustomResourceDefinition (apiextensions.k8s.io/v1) built from a TypeBox schema, one served storage version.
 * Small on purpose: src/region/apis/crd.ts builds the same object for the region kinds, and the two are to merge
 * into src/kube/ (the products must not import each other).
 */
import type { TSchema } from 'typebox';
import type { KubeObject } from '../../kube/object.ts';
import { qualifiedResource, type ResourceType } from '../../kube/resource-type.ts';
import type { JSONSchemaProps } from '../../kube/schema/types.ts';

export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly description?: string;
  readonly priority?: number;
}

export interface CrdOptions {
  readonly type: ResourceType;
  /** The whole object's schema: spec, status and any root `x-kubernetes-validations`. */
  readonly schema: TSchema;
  readonly printerColumns?: readonly PrinterColumn[];
  readonly shortNames?: readonly string[];
  readonly statusSubresource?: boolean;
}

/** The `openAPIV3Schema` of a TypeBox schema: plain JSON, so TypeBox's hidden markers never reach a server. */
export function openAPIV3Schema(schema: TSchema): JSONSchemaProps {
  return JSON.parse(JSON.stringify(schema)) as JSONSchemaProps;
}

export function customResourceDefinition(options: CrdOptions): KubeObject {
  const { type } = options;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: qualifiedResource(type) },
    spec: {
      group: type.group,
      scope: type.namespaced ? 'Namespaced' : 'Cluster',
      names: {
        plural: type.plural,
        singular: type.kind.toLowerCase(),
        kind: type.kind,
        listKind: `${type.kind}List`,
        ...(options.shortNames ? { shortNames: [...options.shortNames] } : {}),
      },
      versions: [
        {
          name: type.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: openAPIV3Schema(options.schema) },
          ...(options.statusSubresource === false ? {} : { subresources: { status: {} } }),
          ...(options.printerColumns
            ? { additionalPrinterColumns: options.printerColumns.map((c) => ({ ...c })) }
            : {}),
        },
      ],
    },
  };
}
