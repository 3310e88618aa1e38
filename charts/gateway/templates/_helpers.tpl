{{/*
Release-wide name: the release name, or <release>-gateway when the release name does not say gateway.
*/}}
{{- define "gateway.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Object name of a component: <fullname>-<component>. Argument: (list $ $name). */}}
{{- define "gateway.componentName" -}}
{{- $root := index . 0 -}}
{{- printf "%s-%s" (include "gateway.fullname" $root) (index . 1) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels every object carries. */}}
{{- define "gateway.commonLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/part-of: data-gateway
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{/* Selector labels of a component. Argument: (list $ $name). */}}
{{- define "gateway.selectorLabels" -}}
{{- $root := index . 0 -}}
app.kubernetes.io/name: {{ index . 1 }}
app.kubernetes.io/instance: {{ $root.Release.Name }}
{{- end -}}

{{/* All labels of a component's objects. Argument: (list $ $name). */}}
{{- define "gateway.labels" -}}
{{ include "gateway.commonLabels" (index . 0) }}
{{ include "gateway.selectorLabels" . }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{/*
A component's configuration: `default` with the component's entry merged over it (maps key by key; lists and
scalars replace). Argument: (list $ $name). Returns YAML; use with fromYaml.
*/}}
{{- define "gateway.component" -}}
{{- $root := index . 0 -}}
{{- $entry := index $root.Values.components (index . 1) | default dict -}}
{{- toYaml (mustMergeOverwrite (deepCopy $root.Values.default) (deepCopy $entry)) -}}
{{- end -}}

{{/* Names of the enabled components, sorted. Returns a YAML list; use with fromYamlArray. */}}
{{- define "gateway.enabledComponents" -}}
{{- $enabled := list -}}
{{- range $name := keys .Values.components | sortAlpha -}}
{{- $c := include "gateway.component" (list $ $name) | fromYaml -}}
{{- if $c.enabled -}}{{- $enabled = append $enabled $name -}}{{- end -}}
{{- end -}}
{{- toYaml $enabled -}}
{{- end -}}

{{/* Whether a component is enabled. Argument: (list $ $name). Returns "true" or "". */}}
{{- define "gateway.isEnabled" -}}
{{- $root := index . 0 -}}
{{- if hasKey $root.Values.components (index . 1) -}}
{{- $c := include "gateway.component" . | fromYaml -}}
{{- if $c.enabled -}}true{{- end -}}
{{- end -}}
{{- end -}}

{{/* Enabled components that call provider-proxy (uses: providerProxy). Returns a YAML list. */}}
{{- define "gateway.providerProxyCallers" -}}
{{- $callers := list -}}
{{- range $name := include "gateway.enabledComponents" . | fromYamlArray -}}
{{- $c := include "gateway.component" (list $ $name) | fromYaml -}}
{{- if has "providerProxy" $c.uses -}}{{- $callers = append $callers $name -}}{{- end -}}
{{- end -}}
{{- toYaml $callers -}}
{{- end -}}

{{/* Port number of a named port of a component. Argument: (list $component $portName). */}}
{{- define "gateway.portNumber" -}}
{{- $c := index . 0 -}}
{{- range $c.ports -}}
{{- if eq .name (index $ 1) -}}{{ .containerPort }}{{- end -}}
{{- end -}}
{{- end -}}

{{/* Image reference of a component. Argument: (list $ $name $component). Refuses "latest". */}}
{{- define "gateway.image" -}}
{{- $root := index . 0 -}}
{{- $name := index . 1 -}}
{{- $image := (index . 2).image | default dict -}}
{{- $repository := $image.repository | default (printf "%s/%s" $root.Values.image.registry $name) -}}
{{- $tag := $image.tag | default $root.Values.image.tag | default $root.Chart.AppVersion | toString -}}
{{- $digest := $image.digest | default $root.Values.image.digest -}}
{{- if or (eq $tag "latest") (hasPrefix "latest@" $tag) -}}
{{- fail (printf "components.%s: the image tag \"latest\" is not allowed; pin a version or a digest" $name) -}}
{{- end -}}
{{- if $digest -}}
{{- printf "%s:%s@%s" $repository $tag $digest -}}
{{- else -}}
{{- printf "%s:%s" $repository $tag -}}
{{- end -}}
{{- end -}}

{{/*
Name of the Secret behind a `secrets` entry: its existingSecret, else the dev Secret the chart creates when
devSecrets.create is on, else "" (the validation fails the render before that matters).
*/}}
{{- define "gateway.secretName" -}}
{{- $root := index . 0 -}}
{{- $entry := index $root.Values.secrets (index . 1) -}}
{{- if $entry.existingSecret -}}
{{- $entry.existingSecret -}}
{{- else if $root.Values.devSecrets.create -}}
{{- printf "%s-dev-%s" (include "gateway.fullname" $root) (index . 1 | kebabcase) -}}
{{- end -}}
{{- end -}}

{{/*
The app credentials a component reads through `providers`: every provider's secretEnv (uses: providers) or
sandbox.secretEnv (uses: sandbox), as {NAME: {secret, key, optional}}; `secret` is the `secrets` entry a reference
names, secrets.platforms by default. Argument: (list $ $component). Returns YAML; use with fromYaml.
*/}}
{{- define "gateway.providerSecretEnv" -}}
{{- $root := index . 0 -}}
{{- $c := index . 1 -}}
{{- $refs := dict -}}
{{- range $provider := keys ($root.Values.providers | default dict) | sortAlpha -}}
{{- $p := index $root.Values.providers $provider -}}
{{- $sources := list -}}
{{- if has "providers" $c.uses -}}{{- $sources = append $sources ($p.secretEnv | default dict) -}}{{- end -}}
{{- if has "sandbox" $c.uses -}}{{- $sources = append $sources (($p.sandbox | default dict).secretEnv | default dict) -}}{{- end -}}
{{- range $source := $sources -}}
{{- range $env, $ref := $source -}}
{{- $_ := set $refs $env (dict "secret" ($ref.secret | default "platforms") "key" $ref.key "optional" ($ref.optional | default false)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml $refs -}}
{{- end -}}

{{/* env entries of a component. Argument: (list $ $name $component). */}}
{{- define "gateway.env" -}}
{{- $root := index . 0 -}}
{{- $name := index . 1 -}}
{{- $c := index . 2 -}}
{{- $plain := dict -}}
{{- range $c.ports -}}
{{- if .env -}}{{- $_ := set $plain .env (toString .containerPort) -}}{{- end -}}
{{- end -}}
{{- if has "limiter" $c.uses -}}
{{- $_ := set $plain "PARTITIONS" (toString $root.Values.limiter.partitions) -}}
{{- $_ := set $plain "SUBJECT_PREFIX" $root.Values.limiter.subjectPrefix -}}
{{- end -}}
{{- if and (has "nats" $c.uses) (not $root.Values.nats.existingSecret) -}}
{{- $_ := set $plain "NATS_URL" $root.Values.nats.url -}}
{{- end -}}
{{- if has "providerProxy" $c.uses -}}
{{- $proxy := include "gateway.component" (list $root "provider-proxy") | fromYaml -}}
{{- $_ := set $plain "PROVIDER_PROXY_ADDRESS" (printf "%s:%s" (include "gateway.componentName" (list $root "provider-proxy")) (include "gateway.portNumber" (list $proxy "grpc"))) -}}
{{- end -}}
{{- with $c.publicUrl -}}
{{- if and .env (not (index ($c.env | default dict) .env)) -}}
{{- $url := include "gateway.publicUrl" (list $root $name .path) -}}
{{- if $url -}}{{- $_ := set $plain .env $url -}}{{- end -}}
{{- end -}}
{{- end -}}
{{- /* Another component's public URL (mcp-server and oauth-server name each other), when it is enabled; with
internal: true its Service inside the cluster (http://<release>-<component>:<http port><path>). */ -}}
{{- range $c.peerUrls -}}
{{- if and (include "gateway.isEnabled" (list $root .component)) (not (index ($c.env | default dict) .env)) -}}
{{- $url := "" -}}
{{- if .internal -}}
{{- $peer := include "gateway.component" (list $root .component) | fromYaml -}}
{{- $url = printf "http://%s:%s%s" (include "gateway.componentName" (list $root .component)) (include "gateway.portNumber" (list $peer "http")) (.path | default "") -}}
{{- else -}}
{{- $url = include "gateway.publicUrl" (list $root .component .path) -}}
{{- end -}}
{{- if $url -}}{{- $_ := set $plain .env $url -}}{{- end -}}
{{- end -}}
{{- end -}}
{{- /* Each provider's platform settings (values `providers`); the component's own env wins. */ -}}
{{- if has "providers" $c.uses -}}
{{- range $provider := keys ($root.Values.providers | default dict) | sortAlpha -}}
{{- range $key, $value := (index $root.Values.providers $provider).env -}}
{{- $_ := set $plain $key (toString $value) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range $key, $value := $c.env -}}
{{- $_ := set $plain $key (toString $value) -}}
{{- end -}}
{{- /* dev / demo: every platform is the sandbox (its path prefix per provider), whatever the component's env says. */ -}}
{{- if and (has "providers" $c.uses) (include "gateway.isEnabled" (list $root "platform-sandbox")) -}}
{{- $sandbox := include "gateway.component" (list $root "platform-sandbox") | fromYaml -}}
{{- $sandboxUrl := printf "http://%s:%s" (include "gateway.componentName" (list $root "platform-sandbox")) (include "gateway.portNumber" (list $sandbox "http")) -}}
{{- range $provider := keys ($root.Values.providers | default dict) | sortAlpha -}}
{{- range $key, $path := ((index $root.Values.providers $provider).sandbox | default dict).urls -}}
{{- $_ := set $plain $key (printf "%s%s" $sandboxUrl $path) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $secretEnv := include "gateway.providerSecretEnv" (list $root $c) | fromYaml -}}
{{- range $key, $ref := ($c.secretEnv | default dict) -}}
{{- $_ := set $secretEnv $key $ref -}}
{{- end -}}
{{- if has "mongodb" $c.uses -}}
{{- $_ := set $secretEnv "MONGODB_URI" (dict "secret" "mongodb" "key" "uri") -}}
{{- end -}}
{{- if and (has "nats" $c.uses) $root.Values.nats.existingSecret -}}
{{- $_ := set $secretEnv "NATS_URL" (dict "secret" "nats" "key" "url") -}}
{{- end -}}
{{- $otel := $root.Values.opentelemetry -}}
- name: K8S_POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: K8S_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
{{- range $key := keys $plain | sortAlpha }}
{{- if not (hasKey $secretEnv $key) }}
- name: {{ $key }}
  value: {{ index $plain $key | quote }}
{{- end }}
{{- end }}
{{- range $key := keys $secretEnv | sortAlpha }}
{{- $ref := index $secretEnv $key }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      {{- if eq $ref.secret "nats" }}
      name: {{ $root.Values.nats.existingSecret }}
      key: {{ $root.Values.nats.urlKey }}
      {{- else }}
      name: {{ include "gateway.secretName" (list $root $ref.secret) }}
      key: {{ index (index $root.Values.secrets $ref.secret).keys $ref.key }}
      {{- if $ref.optional }}
      optional: true
      {{- end }}
      {{- end }}
{{- end }}
- name: OTEL_SERVICE_NAME
  value: {{ $name }}
{{- if not $otel.enabled }}
- name: OTEL_SDK_DISABLED
  value: "true"
{{- else if $otel.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ $otel.endpoint | quote }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ $otel.protocol | quote }}
- name: OTEL_TRACES_SAMPLER
  value: {{ $otel.sampler | quote }}
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ $otel.samplerArg | quote }}
{{- end }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ printf "service.namespace=%s,service.version=%s,k8s.namespace.name=$(K8S_NAMESPACE),k8s.pod.name=$(K8S_POD_NAME)%s" (include "gateway.fullname" $root) $root.Chart.AppVersion (ternary (printf ",%s" $otel.resourceAttributes) "" (ne $otel.resourceAttributes "")) | quote }}
{{- with $c.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Pod selector of a component, as a NetworkPolicy peer. Argument: (list $ $name). */}}
{{- define "gateway.peer" -}}
- podSelector:
    matchLabels:
      {{- include "gateway.selectorLabels" . | nindent 6 }}
{{- end -}}

{{/* Labels of the helm test pod, which the NetworkPolicies let in. */}}
{{- define "gateway.testPeer" -}}
- podSelector:
    matchLabels:
      app.kubernetes.io/instance: {{ .Release.Name }}
      app.kubernetes.io/component: helm-test
{{- end -}}

{{/*
Public URL of a component: https://<host of its Ingress entry><path> (TLS ends at the ingress or in front of it);
"" without an Ingress host. Argument: (list $ $name $path).
*/}}
{{- define "gateway.publicUrl" -}}
{{- $root := index . 0 -}}
{{- $name := index . 1 -}}
{{- if $root.Values.ingress.enabled -}}
{{- range $key := keys $root.Values.ingress.hosts | sortAlpha -}}
{{- $host := index $root.Values.ingress.hosts $key -}}
{{- if eq $host.component $name -}}
{{- printf "https://%s%s" $host.host (index $ 2 | default "") -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Enabled components that call another one inside the cluster (a peerUrls entry with internal: true), as a YAML
list. Argument: (list $ $peer).
*/}}
{{- define "gateway.internalCallers" -}}
{{- $root := index . 0 -}}
{{- $peer := index . 1 -}}
{{- $callers := list -}}
{{- range $name := include "gateway.enabledComponents" $root | fromYamlArray -}}
{{- $c := include "gateway.component" (list $root $name) | fromYaml -}}
{{- range $c.peerUrls -}}
{{- if and .internal (eq .component $peer) -}}{{- $callers = append $callers $name -}}{{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml ($callers | uniq) -}}
{{- end -}}
