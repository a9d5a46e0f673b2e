/**
 * Grafana dashboard JSON from a declarative table: a dashboard is sections (a row each) of panels, each panel a
 * title, a unit and its PromQL queries. Only this file knows Grafana's JSON model (schemaVersion 39); the tables in
 * `dashboards.ts` only say what to show. The JSON imports as is through Grafana's "Import dashboard" (the
 * `DS_PROMETHEUS` input picks the data source) and works from a provisioned ConfigMap too (the `datasource`
 * variable then falls back to the default Prometheus data source).
 */

/** The data source input Grafana's import asks for; the `datasource` variable starts on it. */
export const DATASOURCE_INPUT = 'DS_PROMETHEUS';
/** How every panel and query names its data source: the `datasource` template variable. */
export const PANEL_DATASOURCE = { type: 'prometheus', uid: '${datasource}' } as const;

/** One PromQL query of a panel and its legend (Grafana's `{{label}}` syntax). */
export interface QuerySpec {
  expr: string;
  legend: string;
}

/** A panel: a time series graph unless `stat` (one big number per series, coloured by `thresholds`). */
export interface PanelSpec {
  title: string;
  description: string;
  /** Grafana unit id: `ops`, `s`, `bytes`, `percentunit`, `short`, `reqps`, `percent`… */
  unit: string;
  queries: QuerySpec[];
  /** Width in grid columns (of 24); default 12. */
  width?: number;
  stat?: { thresholds: { value: number | null; color: string }[]; mappings?: { value: string; text: string }[] };
}

export interface SectionSpec {
  title: string;
  panels: PanelSpec[];
}

/** A template variable listing one label's values of one metric, filtered by the variables before it. */
export interface VariableSpec {
  name: string;
  label: string;
  /** `label_values(<metric>{<filter>}, <label>)`. */
  metric: string;
  filter?: string;
  /** Several values at once, with an "All" entry (regex `.*`). */
  multi?: boolean;
}

export interface DashboardSpec {
  /** File name under config/grafana/. */
  file: string;
  /** Last part of the uid (the whole uid is at most 40 characters). */
  uid: string;
  title: string;
  description: string;
  variables: VariableSpec[];
  sections: SectionSpec[];
}

const PANEL_HEIGHT = 8;
const GRID_WIDTH = 24;

/** The Grafana dashboard for `spec`; `project` (a DNS-1123 label) goes into the title and uid. Deterministic. */
export function buildDashboard(spec: DashboardSpec, project: string | undefined): Record<string, unknown> {
  let id = 0;
  let x = 0;
  let y = 0;
  const panels: Record<string, unknown>[] = [];
  for (const section of spec.sections) {
    if (x > 0) y += PANEL_HEIGHT;
    x = 0;
    panels.push({ collapsed: false, gridPos: { h: 1, w: GRID_WIDTH, x: 0, y }, id: ++id, panels: [], title: section.title, type: 'row' });
    y += 1;
    for (const p of section.panels) {
      const w = p.width ?? 12;
      if (x + w > GRID_WIDTH) {
        x = 0;
        y += PANEL_HEIGHT;
      }
      panels.push(buildPanel(p, ++id, { h: PANEL_HEIGHT, w, x, y }));
      x += w;
    }
  }
  const panelTypes = [...new Set(panels.map((p) => p['type'] as string))].filter((t) => t !== 'row').sort();
  return {
    __inputs: [{ name: DATASOURCE_INPUT, label: 'Prometheus', description: 'The Prometheus that scrapes the controller manager', type: 'datasource', pluginId: 'prometheus', pluginName: 'Prometheus' }],
    __requires: [
      { type: 'grafana', id: 'grafana', name: 'Grafana', version: '10.0.0' },
      { type: 'datasource', id: 'prometheus', name: 'Prometheus', version: '1.0.0' },
      ...panelTypes.map((t) => ({ type: 'panel', id: t, name: t === 'stat' ? 'Stat' : 'Time series', version: '' })),
    ],
    annotations: {
      list: [{ builtIn: 1, datasource: { type: 'grafana', uid: '-- Grafana --' }, enable: true, hide: true, iconColor: 'rgba(0, 211, 255, 1)', name: 'Annotations & Alerts', type: 'dashboard' }],
    },
    description: spec.description,
    editable: true,
    fiscalYearStartMonth: 0,
    graphTooltip: 1,
    id: null,
    links: [],
    panels,
    refresh: '30s',
    schemaVersion: 39,
    tags: ['kubegen', 'controller-runtime'],
    templating: { list: [datasourceVariable(), ...spec.variables.map(queryVariable)] },
    time: { from: 'now-1h', to: 'now' },
    timepicker: {},
    timezone: '',
    title: project === undefined ? spec.title : `${project} / ${spec.title}`,
    uid: dashboardUid(project, spec.uid),
    version: 1,
    weekStart: '',
  };
}

/** `<project>-<suffix>`, shortened (keeping a hash of the project) to Grafana's 40-character limit. */
export function dashboardUid(project: string | undefined, suffix: string): string {
  const base = `${project ?? 'kubegen'}-${suffix}`;
  if (base.length <= 40) return base;
  const hash = fnv1a(project ?? '').toString(16).padStart(8, '0');
  return `${(project ?? '').slice(0, 40 - suffix.length - 10)}-${hash}-${suffix}`;
}

/** 32-bit FNV-1a of `s`: a stable short hash (not for security). */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function buildPanel(p: PanelSpec, id: number, gridPos: { h: number; w: number; x: number; y: number }): Record<string, unknown> {
  const targets = p.queries.map((q, i) => ({
    datasource: PANEL_DATASOURCE,
    editorMode: 'code',
    expr: q.expr,
    legendFormat: q.legend,
    range: true,
    refId: String.fromCharCode(65 + i),
  }));
  if (p.stat) {
    return {
      datasource: PANEL_DATASOURCE,
      description: p.description,
      fieldConfig: {
        defaults: {
          color: { mode: 'thresholds' },
          mappings: (p.stat.mappings ?? []).map((m) => ({ type: 'value', options: { [m.value]: { text: m.text } } })),
          thresholds: { mode: 'absolute', steps: p.stat.thresholds },
          unit: p.unit,
        },
        overrides: [],
      },
      gridPos,
      id,
      options: {
        colorMode: 'background',
        graphMode: 'none',
        justifyMode: 'auto',
        orientation: 'auto',
        reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
        textMode: 'auto',
      },
      targets,
      title: p.title,
      type: 'stat',
    };
  }
  return {
    datasource: PANEL_DATASOURCE,
    description: p.description,
    fieldConfig: {
      defaults: {
        color: { mode: 'palette-classic' },
        custom: { drawStyle: 'line', fillOpacity: 10, lineWidth: 1, showPoints: 'never', spanNulls: false },
        min: 0,
        unit: p.unit,
      },
      overrides: [],
    },
    gridPos,
    id,
    options: {
      legend: { calcs: ['mean', 'max'], displayMode: 'table', placement: 'bottom', showLegend: true },
      tooltip: { mode: 'multi', sort: 'desc' },
    },
    targets,
    title: p.title,
    type: 'timeseries',
  };
}

function datasourceVariable(): Record<string, unknown> {
  return {
    current: { selected: false, text: 'Prometheus', value: `\${${DATASOURCE_INPUT}}` },
    hide: 0,
    includeAll: false,
    label: 'Data source',
    multi: false,
    name: 'datasource',
    options: [],
    query: 'prometheus',
    refresh: 1,
    regex: '',
    type: 'datasource',
  };
}

function queryVariable(v: VariableSpec): Record<string, unknown> {
  const query = `label_values(${v.metric}${v.filter ? `{${v.filter}}` : ''}, ${v.name})`;
  return {
    ...(v.multi ? { allValue: '.*' } : {}),
    current: {},
    datasource: PANEL_DATASOURCE,
    definition: query,
    hide: 0,
    includeAll: v.multi === true,
    label: v.label,
    multi: v.multi === true,
    name: v.name,
    options: [],
    query: { qryType: 1, query, refId: 'PrometheusVariableQueryEditor-VariableQuery' },
    refresh: 2,
    regex: '',
    sort: 1,
    type: 'query',
  };
}
