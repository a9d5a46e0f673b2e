/**
 * The built-in API front end's rules for Go types (`parse/kube-api/definitions.ts`, openapi-gen's and controller-gen's
 * shared rules), on a small Go tree written by the test: inline and embedded fields, optional/required, enums, named
 * scalars and maps, formats, markers, descriptions, aliases and defined types across packages, and errors.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { DefinitionBuilder } from 'kubegen/internal/parse/kube-api/definitions.js';
import { GoWorkspace } from 'kubegen/internal/parse/kube-api/go-package.js';
import type { GoPackage } from 'kubegen/internal/parse/kube-api/go-package.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-goroot-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const write = (rel: string, text: string): void => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
};

write('k8s.io/apimachinery/pkg/apis/meta/v1/doc.go', '// +k8s:openapi-model-package=io.k8s.apimachinery.pkg.apis.meta.v1\n// +groupName=meta.k8s.io\npackage v1\n');
write('k8s.io/apimachinery/pkg/apis/meta/v1/types.go', `package v1
type TypeMeta struct {
\tKind string \`json:"kind,omitempty"\`
\tAPIVersion string \`json:"apiVersion,omitempty"\`
}
type ObjectMeta struct { Name string \`json:"name,omitempty"\` }
type Time struct{}
`);
write('k8s.io/api/other/v1/doc.go', '// +groupName=other.example.com\npackage v1\n');
write('k8s.io/api/other/v1/types.go', 'package v1\ntype Shared struct {\n\tX string `json:"x"`\n}\n');
write('k8s.io/api/widgets/v1/doc.go', '// +k8s:openapi-model-package=io.k8s.api.widgets.v1\npackage v1\n');
write('k8s.io/api/widgets/v1/register.go', 'package v1\nconst GroupName = "widgets.example.com"\n');
write('k8s.io/api/widgets/v1/types.go', `package v1

import (
\tmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
\tother "k8s.io/api/other/v1"
)

// Widget is a widget.
type Widget struct {
\tmetav1.TypeMeta \`json:",inline"\`
\tmetav1.ObjectMeta \`json:"metadata,omitempty"\`
\tSpec WidgetSpec \`json:"spec,omitempty"\`
}

type WidgetSpec struct {
\tRequired string \`json:"required"\`
\tOmitted string \`json:"omitted,omitempty"\`
\t// +optional
\tMarkedOptional string \`json:"markedOptional"\`
\t// +required
\tMarkedRequired *string \`json:"markedRequired,omitempty"\`
\tSkipped string \`json:"-"\`
\t// +k8s:openapi-gen=false
\tHidden string \`json:"hidden"\`
\tPhase Phase \`json:"phase,omitempty"\`
\tName ResourceName \`json:"name,omitempty"\`
\tLimits ResourceList \`json:"limits,omitempty"\`
\tData []byte \`json:"data,omitempty"\`
\tCount int64 \`json:"count,omitempty"\`
\tRatio float64 \`json:"ratio,omitempty"\`
\t// +listType=map
\t// +listMapKey=name
\tPorts []Port \`json:"ports,omitempty"\`
\t// +default="tcp"
\tProtocol string \`json:"protocol,omitempty"\`
\tTimes map[string]metav1.Time \`json:"times,omitempty"\`
\tWhen metav1.Time \`json:"when,omitempty"\`
\tShared other.Shared \`json:"shared"\`
\tCopied Copied \`json:"copied"\`
\tRef *Ref \`json:"ref,omitempty"\`
}

// Phase is where a widget is.
// Second line.
// +enum
type Phase string

const (
\tPhaseZ Phase = "Z"
\tPhaseA Phase = "A"
\tPhaseAlso = PhaseA
)

type ResourceName string
type ResourceList map[ResourceName]string

type Port struct {
\tName string \`json:"name"\`
}

// +structType=atomic
type Ref struct {
\tName string \`json:"name"\`
}

type Copied other.Shared
type SharedAlias = other.Shared
`);
write('k8s.io/api/widgets/v1/types_swagger_doc_generated.go', `package v1
var map_WidgetSpec = map[string]string{
\t"": "WidgetSpec is the spec.",
\t"required": "Required is required.",
}
`);
write('k8s.io/api/bad/v1/types.go', 'package v1\ntype Bad struct {\n\tC chan int `json:"c"`\n}\n');

function builder(): DefinitionBuilder {
  const packageOf = (pkg: GoPackage) => {
    if (pkg.path.startsWith('k8s.io/api/')) return { group: pkg.consts.find((c) => c.c.name === 'GroupName')?.c.value ?? '', version: 'v1', dir: pkg.path.slice(11), goPath: pkg.path };
    if (pkg.path.endsWith('meta/v1')) return { group: 'meta.k8s.io', version: 'v1', dir: 'meta/v1', goPath: pkg.path };
    return undefined;
  };
  return new DefinitionBuilder(new GoWorkspace(root), packageOf, (f) => path.relative(root, f));
}

describe('built-in API definitions from Go types', () => {
  const b = builder();
  const id = b.define('k8s.io/api/widgets/v1', 'Widget');
  const defs = b.definitions;
  const spec = defs.get('io.k8s.api.widgets.v1.WidgetSpec')!.schema;
  const p = spec.properties!;

  it('flattens inline structs, refers to structs by id, and ids follow the model package', () => {
    assert.equal(id, 'io.k8s.api.widgets.v1.Widget');
    const w = defs.get(id)!.schema;
    assert.deepEqual(Object.keys(w.properties!), ['kind', 'apiVersion', 'metadata', 'spec']);
    assert.deepEqual(w.properties!['metadata'], { $ref: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
    assert.equal(w.required, undefined);
    assert.equal(defs.get('io.k8s.api.other.v1.Shared')?.pkg.dir, 'other/v1', 'reverse-DNS id without the marker');
  });

  it('decides required as openapi-gen: +optional/+required, else omitempty; leaves out json:"-" and openapi-gen=false', () => {
    assert.deepEqual(spec.required, ['required', 'markedRequired', 'shared', 'copied']);
    assert.ok(!('Skipped' in p) && !('hidden' in p) && !('-' in p));
  });

  it('makes a +enum type a definition of sorted constant values (references resolved), named scalars and maps inline', () => {
    assert.deepEqual(p['phase'], { $ref: 'io.k8s.api.widgets.v1.Phase' });
    assert.deepEqual(defs.get('io.k8s.api.widgets.v1.Phase')!.schema, { type: 'string', enum: ['A', 'Z'], description: 'Phase is where a widget is. Second line.' });
    assert.deepEqual(p['name'], { type: 'string' });
    assert.deepEqual(p['limits'], { type: 'object', additionalProperties: { type: 'string' } });
  });

  it('writes formats as controller-gen does, []byte as base64', () => {
    assert.deepEqual(p['data'], { type: 'string', format: 'byte' });
    assert.deepEqual(p['count'], { type: 'integer', format: 'int64' });
    assert.deepEqual(p['ratio'], { type: 'number' });
  });

  it('applies field and type markers, and takes descriptions from the swagger docs', () => {
    assert.deepEqual(p['ports'], { type: 'array', items: { $ref: 'io.k8s.api.widgets.v1.Port' }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] });
    assert.deepEqual(p['protocol'], { type: 'string', default: 'tcp' });
    assert.equal(defs.get('io.k8s.api.widgets.v1.Ref')!.schema['x-kubernetes-map-type'], 'atomic');
    assert.equal(spec.description, 'WidgetSpec is the spec.');
    assert.equal(p['required']!.description, 'Required is required.');
  });

  it('makes a time nullable as a map value only, and knows apimachinery\'s JSON forms', () => {
    assert.deepEqual(p['times'], { type: 'object', additionalProperties: { $ref: 'io.k8s.apimachinery.pkg.apis.meta.v1.Time', nullable: true } });
    assert.deepEqual(p['when'], { $ref: 'io.k8s.apimachinery.pkg.apis.meta.v1.Time' });
    assert.deepEqual(defs.get('io.k8s.apimachinery.pkg.apis.meta.v1.Time')!.schema, { type: 'string', format: 'date-time' });
  });

  it('types a defined type over another package\'s struct as a struct of its own, an alias as a reference to it', () => {
    assert.deepEqual(p['shared'], { $ref: 'io.k8s.api.other.v1.Shared' });
    assert.deepEqual(p['copied'], { $ref: 'io.k8s.api.widgets.v1.Copied' });
    assert.deepEqual(defs.get('io.k8s.api.widgets.v1.Copied')!.schema, { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] });
    b.defineAlias('k8s.io/api/widgets/v1', 'SharedAlias');
    assert.deepEqual(defs.get('io.k8s.api.widgets.v1.SharedAlias')!.schema, { $ref: 'io.k8s.api.other.v1.Shared' });
  });

  it('refuses a type with no JSON form, naming file, line and column', () => {
    assert.throws(() => builder().define('k8s.io/api/bad/v1', 'Bad'), { message: 'k8s.io/api/bad/v1/types.go:3:2: a chan type has no JSON form' });
  });
});
