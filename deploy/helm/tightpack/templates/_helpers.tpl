{{/*
The chart's name, or nameOverride.
*/}}
{{- define "tightpack.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The full name of the objects: fullnameOverride, else "<release>-<name>", or the
release name alone when it already contains the name. 63 characters at most
(DNS label).
*/}}
{{- define "tightpack.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Chart name and version, for the helm.sh/chart label.
*/}}
{{- define "tightpack.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The labels every object carries.
*/}}
{{- define "tightpack.labels" -}}
helm.sh/chart: {{ include "tightpack.chart" . }}
{{ include "tightpack.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: scheduler
app.kubernetes.io/part-of: tightpack
{{- end }}

{{/*
The labels that select the scheduler's pods (never change them on upgrade).
*/}}
{{- define "tightpack.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tightpack.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
The ServiceAccount's name.
*/}}
{{- define "tightpack.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "tightpack.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The leader-election Lease: name and namespace.
*/}}
{{- define "tightpack.leaseName" -}}
{{- default (include "tightpack.fullname" .) .Values.scheduler.leaderElection.resourceName }}
{{- end }}

{{- define "tightpack.leaseNamespace" -}}
{{- default .Release.Namespace .Values.scheduler.leaderElection.resourceNamespace }}
{{- end }}

{{/*
The image reference: repository@digest, or repository:tag (tag defaults to appVersion).
*/}}
{{- define "tightpack.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
The KubeSchedulerConfiguration the scheduler reads (the ConfigMap's config.yaml):
the built-in profile (scheduler.schedulerName, plugins, pluginConfig), then
scheduler.extraProfiles; leader election on the chart's Lease.
*/}}
{{- define "tightpack.schedulerConfiguration" -}}
{{- $s := .Values.scheduler }}
{{- $profile := dict "schedulerName" $s.schedulerName }}
{{- with $s.plugins }}{{- $_ := set $profile "plugins" . }}{{- end }}
{{- with $s.pluginConfig }}{{- $_ := set $profile "pluginConfig" . }}{{- end }}
{{- $le := dict "leaderElect" $s.leaderElection.enabled }}
{{- if $s.leaderElection.enabled }}
{{- $_ := set $le "resourceLock" "leases" }}
{{- $_ := set $le "resourceName" (include "tightpack.leaseName" .) }}
{{- $_ := set $le "resourceNamespace" (include "tightpack.leaseNamespace" .) }}
{{- $_ := set $le "leaseDuration" $s.leaderElection.leaseDuration }}
{{- $_ := set $le "renewDeadline" $s.leaderElection.renewDeadline }}
{{- $_ := set $le "retryPeriod" $s.leaderElection.retryPeriod }}
{{- end }}
{{- $config := dict
      "apiVersion" "kubescheduler.config.k8s.io/v1"
      "kind" "KubeSchedulerConfiguration"
      "leaderElection" $le
      "clientConnection" (dict "qps" $s.clientConnection.qps "burst" $s.clientConnection.burst)
      "podInitialBackoffSeconds" $s.podInitialBackoffSeconds
      "podMaxBackoffSeconds" $s.podMaxBackoffSeconds
      "profiles" (concat (list $profile) $s.extraProfiles) }}
{{- toYaml $config }}
{{- end }}

{{/* The Secret whose key `token` gets /snapshot, or "" for none. */}}
{{- /* The Secret of the serving certificate: the operator's, the chart's, or none. */ -}}
{{- define "tightpack.tlsSecret" -}}
{{- if .Values.tls.existingSecret -}}
{{ .Values.tls.existingSecret }}
{{- else if .Values.tls.generate -}}
{{ include "tightpack.fullname" . }}-tls
{{- end -}}
{{- end }}

{{- define "tightpack.snapshotTokenSecret" -}}
{{- if .Values.snapshotToken.existingSecret -}}
{{ .Values.snapshotToken.existingSecret }}
{{- else if .Values.snapshotToken.create -}}
{{ include "tightpack.fullname" . }}-snapshot-token
{{- end -}}
{{- end }}
