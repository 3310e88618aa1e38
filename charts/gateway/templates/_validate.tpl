{{/*
Fails the render, naming every missing piece at once, when the configuration cannot work: Secrets a component
needs but nobody named, no NATS for the components that talk over it, the sandbox or dev Secrets outside a
dev/demo profile, an Ingress host for a component that does not exist. Included once, by the Deployments.
*/}}
{{- define "gateway.validate" -}}
{{- $problems := list -}}
{{- $devProfile := has .Values.profile (list "dev" "demo") -}}
{{- if and .Values.devSecrets.create (not $devProfile) -}}
{{- $problems = append $problems (printf "devSecrets.create is only allowed with profile dev or demo (profile is %q): production credentials come from existing Secrets" .Values.profile) -}}
{{- end -}}
{{- if and (include "gateway.isEnabled" (list . "platform-sandbox")) (not $devProfile) -}}
{{- $problems = append $problems (printf "components.platform-sandbox.enabled needs profile dev or demo (profile is %q): the sandbox is never in the production path" .Values.profile) -}}
{{- end -}}
{{- $missing := dict -}}
{{- $needsNats := list -}}
{{- range $name := include "gateway.enabledComponents" . | fromYamlArray -}}
{{- $c := include "gateway.component" (list $ $name) | fromYaml -}}
{{- $refs := concat (values ($c.secretEnv | default dict)) (values (include "gateway.providerSecretEnv" (list $ $c) | fromYaml)) -}}
{{- if has "mongodb" $c.uses -}}{{- $refs = append $refs (dict "secret" "mongodb" "key" "uri") -}}{{- end -}}
{{- range $ref := $refs -}}
{{- $entry := index $.Values.secrets $ref.secret -}}
{{- if not $entry -}}
{{- fail (printf "components.%s.secretEnv refers to secrets.%s, which is not defined" $name $ref.secret) -}}
{{- end -}}
{{- if not (index $entry.keys $ref.key) -}}
{{- fail (printf "components.%s.secretEnv refers to secrets.%s.keys.%s, which is not defined" $name $ref.secret $ref.key) -}}
{{- end -}}
{{- if not (include "gateway.secretName" (list $ $ref.secret)) -}}
{{- $_ := set $missing $ref.secret (append (get $missing $ref.secret | default list) $name | uniq) -}}
{{- end -}}
{{- end -}}
{{- if has "nats" $c.uses -}}{{- $needsNats = append $needsNats $name -}}{{- end -}}
{{- with $c.publicUrl -}}
{{- if and .env (not (index ($c.env | default dict) .env)) (not (include "gateway.publicUrl" (list $ $name .path))) -}}
{{- $problems = append $problems (printf "components.%s needs %s: give it an ingress host or set components.%s.env.%s" $name .env $name .env) -}}
{{- end -}}
{{- end -}}
{{- range $c.peerUrls -}}
{{- if and .required (not (index ($c.env | default dict) .env)) (not (and (include "gateway.isEnabled" (list $ .component)) (include "gateway.publicUrl" (list $ .component .path)))) -}}
{{- $problems = append $problems (printf "components.%s needs %s: enable %s with an ingress host or set components.%s.env.%s" $name .env .component $name .env) -}}
{{- end -}}
{{- end -}}
{{- if and (has "providerProxy" $c.uses) (not (include "gateway.isEnabled" (list $ "provider-proxy"))) -}}
{{- $problems = append $problems (printf "components.%s calls provider-proxy, which is disabled" $name) -}}
{{- end -}}
{{- range $c.ports -}}
{{- if not (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" .name) -}}
{{- fail (printf "components.%s.ports: %q is not a valid port name" $name .name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range $secret := keys $missing | sortAlpha -}}
{{- $entry := index $.Values.secrets $secret -}}
{{- $problems = append $problems (printf "secrets.%s.existingSecret is required by %s: create a Secret with the keys %s and name it there" $secret (join ", " (index $missing $secret)) (join ", " (values $entry.keys | sortAlpha))) -}}
{{- end -}}
{{- /* Providers that share a platform (the three marketplace apps) set the same variable: the values must agree. */ -}}
{{- $providerEnv := dict -}}
{{- range $provider := keys (.Values.providers | default dict) | sortAlpha -}}
{{- range $key, $value := (index $.Values.providers $provider).env -}}
{{- $seen := get $providerEnv $key -}}
{{- if and $seen (ne (toString $value) (index $seen 1)) -}}
{{- $problems = append $problems (printf "providers.%s.env.%s (%q) differs from providers.%s.env.%s (%q): providers that share a platform need the same value" $provider $key (toString $value) (index $seen 0) $key (index $seen 1)) -}}
{{- else if not $seen -}}
{{- $_ := set $providerEnv $key (list $provider (toString $value)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and $needsNats (not .Values.nats.url) (not .Values.nats.existingSecret) -}}
{{- $problems = append $problems (printf "nats.url (or nats.existingSecret) is required by %s: a NATS server with JetStream" (join ", " $needsNats)) -}}
{{- end -}}
{{- if .Values.ingress.enabled -}}
{{- range $key, $host := .Values.ingress.hosts -}}
{{- if not (hasKey $.Values.components $host.component) -}}
{{- $problems = append $problems (printf "ingress.hosts.%s names component %q, which is not in components" $key $host.component) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if $problems -}}
{{- fail (printf "\n\nThe gateway chart cannot be rendered with these values:\n  - %s\n" (join "\n  - " $problems)) -}}
{{- end -}}
{{- end -}}
