/**
 * client-go's typed clients (`k8s.io/client-go/kubernetes/typed/<folder>/<version>`), read for what they know about
 * each built-in kind that `k8s.io/api` does not say: the accessor on the group client (`PodDisruptionBudgets`), the
 * resource (`poddisruptionbudgets`), the scope (whether the constructor takes a namespace), the verbs and extra
 * methods of the kind's interface, and its hand-written expansion's methods. The files are code-generator's output,
 * so they are read by their fixed shapes; a file that does not have them is an error naming it.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface TypedClient {
  /** The group client's accessor (`Pods`). */
  accessor: string;
  namespaced: boolean;
  /** The resource, as the client sends it (`pods`). */
  resource: string;
  /** The kind's Go type: its import path and name (`k8s.io/api/core/v1`, `Pod`). */
  typePath: string;
  typeName: string;
  /** Whether the client lists (it then has a list type, `<Type>List`). */
  lists: boolean;
  /** The methods of the kind's interface, generated and from its expansion (`Create`, `UpdateStatus`, `Bind`, …). */
  methods: string[];
  file: string;
}

/** One group/version's typed clients, in the order of the group client's interface. */
export interface TypedGroupVersion {
  /** `core`, `policy`, `rbac` — the folder below `typed/` (and below `k8s.io/api/`). */
  folder: string;
  version: string;
  /** The group client's name stem (`CoreV1`, `FlowcontrolV1`, `InternalV1alpha1`). */
  clientName: string;
  clients: TypedClient[];
}

/** Every typed group/version under `typedRoot` (`…/k8s.io/client-go/kubernetes/typed`), sorted by folder and version. */
export function readTypedClients(typedRoot: string): TypedGroupVersion[] {
  const out: TypedGroupVersion[] = [];
  for (const folder of fs.readdirSync(typedRoot).sort()) {
    const groupDir = path.join(typedRoot, folder);
    if (!fs.statSync(groupDir).isDirectory()) continue;
    for (const version of fs.readdirSync(groupDir).sort()) {
      const dir = path.join(groupDir, version);
      if (!fs.statSync(dir).isDirectory() || !fs.existsSync(path.join(dir, `${folder}_client.go`))) continue;
      out.push(readGroupVersion(dir, folder, version));
    }
  }
  return out;
}

function readGroupVersion(dir: string, folder: string, version: string): TypedGroupVersion {
  const clientFile = path.join(dir, `${folder}_client.go`);
  const text = fs.readFileSync(clientFile, 'utf8');
  const m = /^type (\w+)Interface interface \{\n([\s\S]*?)\n\}/m.exec(text);
  if (!m) throw new Error(`${clientFile}: no group client interface`);
  const getters = [...m[2]!.matchAll(/^\t(\w+)Getter$/gm)].map((g) => g[1]!);
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'));
  const texts = new Map(files.map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
  const clients = getters.map((g) => readClient(dir, texts, g));
  return { folder, version, clientName: m[1]!, clients };
}

function readClient(dir: string, texts: ReadonlyMap<string, string>, getter: string): TypedClient {
  const getterRe = new RegExp(`^type ${getter}Getter interface \\{\\n\\t${getter}\\((namespace string)?\\) (\\w+)Interface\\n\\}`, 'm');
  const entry = [...texts].find(([, t]) => getterRe.test(t));
  if (!entry) throw new Error(`${dir}: no file declares ${getter}Getter`);
  const [file, text] = entry;
  const gm = getterRe.exec(text)!;
  const iface = gm[2]!;
  const body = new RegExp(`^type ${iface}Interface interface \\{\\n([\\s\\S]*?)\\n\\}`, 'm').exec(text);
  if (!body) throw new Error(`${path.join(dir, file)}: no ${iface}Interface`);
  const methods = [...body[1]!.matchAll(/^\t([A-Z]\w*)\(/gm)].map((x) => x[1]!);
  const expansion = /^\t(\w+Expansion)$/m.exec(body[1]!)?.[1];
  if (expansion) {
    for (const t of texts.values()) {
      const e = new RegExp(`^type ${expansion} interface \\{\\n([\\s\\S]*?)\\n?\\}`, 'm').exec(t);
      if (e) methods.push(...[...e[1]!.matchAll(/^\t([A-Z]\w*)\(/gm)].map((x) => x[1]!));
    }
  }
  const ctor = /gentype\.NewClient(WithListAndApply|WithList|WithApply)?\[\*(\w+)\.(\w+)[,\]][\s\S]*?\(\s*"([^"]+)"/.exec(text);
  if (!ctor) throw new Error(`${path.join(dir, file)}: no gentype client constructor for ${getter}`);
  const alias = ctor[2]!;
  const typePath = new RegExp(`^\\s*${alias} "([^"]+)"$`, 'm').exec(text)?.[1];
  if (!typePath) throw new Error(`${path.join(dir, file)}: no import ${alias}`);
  return {
    accessor: getter,
    namespaced: gm[1] !== undefined,
    resource: ctor[4]!,
    typePath,
    typeName: ctor[3]!,
    lists: (ctor[1] ?? '').includes('List'),
    methods,
    file: path.join(dir, file),
  };
}
