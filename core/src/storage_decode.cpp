// Decoders of the storage objects the volume plugins read (objects.hpp), and
// of the pod volumes that refer to them. Each object is read as the API
// server stores it after defaulting, and checked as its validation would:
// what the API server refuses is an error naming the field, never a guess.
#include <algorithm>
#include <array>
#include <string_view>

#include "decode_detail.hpp"
#include "json_read.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/labels.hpp"
#include "tightpack/timestamp.hpp"

namespace tightpack {

using namespace json_read;

namespace {

constexpr std::string_view kBetaStorageClass = "volume.beta.kubernetes.io/storage-class";
constexpr std::string_view kBindCompleted = "pv.kubernetes.io/bind-completed";
constexpr std::string_view kSelectedNode = "volume.kubernetes.io/selected-node";
constexpr std::string_view kMigratedPlugins = "storage.alpha.kubernetes.io/migrated-plugins";

// The in-tree sources CSI migration translates (csi-translation-lib), by
// the key of their volume source and their plugin name.
constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kInTreeSources = {{
    {"gcePersistentDisk", "kubernetes.io/gce-pd"},
    {"awsElasticBlockStore", "kubernetes.io/aws-ebs"},
    {"cinder", "kubernetes.io/cinder"},
    {"azureDisk", "kubernetes.io/azure-disk"},
    {"azureFile", "kubernetes.io/azure-file"},
    {"vsphereVolume", "kubernetes.io/vsphere-volume"},
    {"portworxVolume", "kubernetes.io/portworx-volume"},
}};

struct Meta {
  std::string ns, name, uid, created;
  Labels labels;
  Labels annotations;
  bool deleting = false;
  std::optional<OwnerReference> controller;

  const std::string* annotation(std::string_view key) const {
    for (const auto& [k, v] : annotations) {
      if (k == key) return &v;
    }
    return nullptr;
  }
};

Fail read_storage_meta(const json::object& o, const JsonPath& path, bool namespaced, Meta& out) {
  const JsonPath mp = path.field("metadata");
  if (const json::value* mv = member(o, "metadata")) {
    const json::object* m = nullptr;
    TP_TRY(as_object(*mv, mp, m));
    TP_TRY(read_string(*m, "name", mp, out.name));
    if (namespaced) TP_TRY(read_string(*m, "namespace", mp, out.ns));
    TP_TRY(read_string(*m, "uid", mp, out.uid));
    TP_TRY(read_string(*m, "creationTimestamp", mp, out.created));
    TP_TRY(read_string_map(*m, "labels", mp, out.labels));
    TP_TRY(read_string_map(*m, "annotations", mp, out.annotations));
    if (const json::value* d = member(*m, "deletionTimestamp")) out.deleting = !d->is_null();
    TP_TRY(decode_detail::read_controller(*m, mp, out.controller));
  }
  if (out.name.empty()) return value_error(mp.field("name"), "the object needs a name");
  if (namespaced && out.ns.empty()) out.ns = "default";
  return std::nullopt;
}

Fail object_part(const json::object& o, std::string_view key, const JsonPath& path,
                 const json::object*& out) {
  out = nullptr;
  const json::value* v = member(o, key);
  if (!v || v->is_null()) return std::nullopt;
  return as_object(*v, path.field(key), out);
}

// A string field that may also be null (absent).
Fail read_optional_string(const json::object& o, std::string_view key, const JsonPath& path,
                          std::optional<std::string>& out) {
  const json::value* v = member(o, key);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_string()) return type_error(path.field(key), "a string", *v);
  out = std::string(v->get_string());
  return std::nullopt;
}

Fail read_access_modes(const json::object& o, const JsonPath& path, uint8_t& out) {
  std::vector<std::string> modes;
  TP_TRY(read_string_list(o, "accessModes", path, modes));
  for (size_t i = 0; i < modes.size(); ++i) {
    const std::string& m = modes[i];
    if (m == "ReadWriteOnce") {
      out |= kReadWriteOnce;
    } else if (m == "ReadOnlyMany") {
      out |= kReadOnlyMany;
    } else if (m == "ReadWriteMany") {
      out |= kReadWriteMany;
    } else if (m == "ReadWriteOncePod") {
      out |= kReadWriteOncePod;
    } else {
      const JsonPath mp = path.field("accessModes");
      return value_error(mp.index(static_cast<int64_t>(i)),
                         "unsupported access mode " + quote_value(m) +
                             " (ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod)");
    }
  }
  return std::nullopt;
}

Fail read_volume_mode(const json::object& o, const JsonPath& path, bool& block) {
  std::optional<std::string> mode;
  TP_TRY(read_optional_string(o, "volumeMode", path, mode));
  if (!mode || *mode == "Filesystem") return std::nullopt;  // the API default
  if (*mode == "Block") {
    block = true;
    return std::nullopt;
  }
  return value_error(path.field("volumeMode"),
                     "unsupported volume mode " + quote_value(*mode) + " (Filesystem, Block)");
}

Fail read_storage_in(const json::object& o, std::string_view key, const JsonPath& path,
                     std::optional<int64_t>& out) {
  const json::value* v = member(o, key);
  if (!v || v->is_null()) return std::nullopt;
  int64_t amount = 0;
  TP_TRY(decode_detail::read_storage_amount(*v, path.field(key), amount));
  out = amount;
  return std::nullopt;
}

Fail read_selector(const json::object& o, std::string_view key, const JsonPath& path,
                   std::optional<LabelSelector>& out) {
  const json::value* v = member(o, key);
  if (!v || v->is_null()) return std::nullopt;
  const JsonPath p = path.field(key);
  TP_TRY(decode_label_selector(*v, p, out.emplace()));
  return validate_label_selector(*out, p);
}

Fail read_phase(const json::object& o, const JsonPath& path, std::string& phase) {
  const json::object* status = nullptr;
  TP_TRY(object_part(o, "status", path, status));
  if (status) TP_TRY(read_string(*status, "phase", path.field("status"), phase));
  if (phase.empty()) phase = "Pending";  // the API default of claims and volumes
  return std::nullopt;
}

template <class Object, class Read>
Result<Object> decode_with(const json::value& v, const JsonPath& path, Read&& read) {
  Object out;
  const json::object* o = nullptr;
  if (auto fail = as_object(v, path, o)) return *fail;
  if (auto fail = read(*o, out)) return *fail;
  return out;
}

}  // namespace

namespace decode_detail {

Fail read_storage_amount(const json::value& v, const JsonPath& path, int64_t& out) {
  auto amount = resource_amount("storage", v);
  if (!amount) return value_error(path, amount.error().message);
  out = *amount;
  return std::nullopt;
}

Fail validate_node_selector_term(const NodeSelectorTerm& term, const JsonPath& path) {
  auto check = [&](const std::vector<NodeSelectorRequirement>& list, const char* key,
                   bool fields) -> Fail {
    for (size_t i = 0; i < list.size(); ++i) {
      const NodeSelectorRequirement& r = list[i];
      const JsonPath lp = path.field(key);
      const JsonPath rp = lp.index(static_cast<int64_t>(i));
      if (fields && r.key != "metadata.name") {
        return value_error(rp.field("key"), "field selector key " + quote_value(r.key) +
                                                " is not supported (metadata.name)");
      }
      const bool set_op = r.op == "In" || r.op == "NotIn";
      const bool exists_op = r.op == "Exists" || r.op == "DoesNotExist";
      const bool int_op = r.op == "Gt" || r.op == "Lt";
      if (!set_op && (fields || (!exists_op && !int_op))) {
        return value_error(rp.field("operator"),
                           "operator " + quote_value(r.op) + " is not one of " +
                               (fields ? "In, NotIn" : "In, NotIn, Exists, DoesNotExist, Gt, Lt"));
      }
      if (set_op && (r.values.empty() || (fields && r.values.size() != 1))) {
        return value_error(rp.field("values"),
                           fields ? "operator " + r.op + " needs exactly one value"
                                  : "operator " + r.op + " needs at least one value");
      }
      if (exists_op && !r.values.empty()) {
        return value_error(rp.field("values"), "operator " + r.op + " takes no values");
      }
      if (int_op) {
        if (r.values.size() != 1)
          return value_error(rp.field("values"), "operator " + r.op + " needs exactly one value");
        const std::string& s = r.values[0];
        const bool integer = !s.empty() &&
                             std::all_of(s.begin() + (s[0] == '-' ? 1 : 0), s.end(),
                                         [](char c) { return c >= '0' && c <= '9'; }) &&
                             s != "-";
        const JsonPath vp = rp.field("values");
        if (!integer)
          return value_error(vp.index(0),
                             "operator " + r.op + " needs an integer, got " + quote_value(s));
      }
    }
    return std::nullopt;
  };
  TP_TRY(check(term.match_expressions, "matchExpressions", false));
  return check(term.match_fields, "matchFields", true);
}

Fail read_pod_volume(const json::object& vol, const JsonPath& path, PodVolume& out) {
  TP_TRY(read_string(vol, "name", path, out.name));
  using Source = PodVolume::Source;
  const json::object* src = nullptr;
  auto source = [&](std::string_view key) -> Fail { return object_part(vol, key, path, src); };
  TP_TRY(source("persistentVolumeClaim"));
  if (src) {
    const JsonPath p = path.field("persistentVolumeClaim");
    out.source = Source::kClaim;
    TP_TRY(read_string(*src, "claimName", p, out.claim));
    TP_TRY(read_bool(*src, "readOnly", p, out.read_only));
    if (out.claim.empty())
      return value_error(p.field("claimName"), "a claim volume needs a claimName");
    return std::nullopt;
  }
  TP_TRY(source("ephemeral"));
  if (src) {
    out.source = Source::kEphemeral;
    return std::nullopt;
  }
  TP_TRY(source("gcePersistentDisk"));
  if (src) {
    const JsonPath p = path.field("gcePersistentDisk");
    out.source = Source::kGcePersistentDisk;
    TP_TRY(read_string(*src, "pdName", p, out.disk));
    return read_bool(*src, "readOnly", p, out.read_only);
  }
  TP_TRY(source("awsElasticBlockStore"));
  if (src) {
    const JsonPath p = path.field("awsElasticBlockStore");
    out.source = Source::kAwsElasticBlockStore;
    TP_TRY(read_string(*src, "volumeID", p, out.disk));
    return read_bool(*src, "readOnly", p, out.read_only);
  }
  TP_TRY(source("iscsi"));
  if (src) {
    const JsonPath p = path.field("iscsi");
    out.source = Source::kIscsi;
    TP_TRY(read_string(*src, "iqn", p, out.disk));
    return read_bool(*src, "readOnly", p, out.read_only);
  }
  TP_TRY(source("rbd"));
  if (src) {
    const JsonPath p = path.field("rbd");
    out.source = Source::kRbd;
    TP_TRY(read_string_list(*src, "monitors", p, out.monitors));
    TP_TRY(read_string(*src, "pool", p, out.pool));
    if (out.pool.empty()) out.pool = "rbd";  // the API default
    TP_TRY(read_string(*src, "image", p, out.disk));
    return read_bool(*src, "readOnly", p, out.read_only);
  }
  for (const auto& [key, plugin] : kInTreeSources) {
    TP_TRY(source(key));
    if (src) {
      out.source = Source::kInTreeMigratable;
      out.disk = std::string(plugin);
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace decode_detail

Result<PersistentVolumeClaim> decode_persistent_volume_claim(const json::value& v,
                                                             const JsonPath& path) {
  return decode_with<PersistentVolumeClaim>(
      v, path, [&](const json::object& o, PersistentVolumeClaim& c) -> Fail {
        Meta meta;
        TP_TRY(read_storage_meta(o, path, true, meta));
        c.ns = std::move(meta.ns);
        c.name = std::move(meta.name);
        c.uid = std::move(meta.uid);
        c.deleting = meta.deleting;
        c.controller = std::move(meta.controller);
        c.bind_completed = meta.annotation(kBindCompleted) != nullptr;
        if (const std::string* node = meta.annotation(kSelectedNode)) c.selected_node = *node;
        c.annotated = !meta.annotations.empty();
        const JsonPath sp = path.field("spec");
        const json::object* spec = nullptr;
        TP_TRY(object_part(o, "spec", path, spec));
        std::optional<std::string> class_name;
        if (spec) {
          TP_TRY(read_optional_string(*spec, "storageClassName", sp, class_name));
          TP_TRY(read_string(*spec, "volumeName", sp, c.volume_name));
          TP_TRY(read_access_modes(*spec, sp, c.access_modes));
          TP_TRY(read_volume_mode(*spec, sp, c.block));
          TP_TRY(read_selector(*spec, "selector", sp, c.selector));
          TP_TRY(read_string(*spec, "volumeAttributesClassName", sp, c.attributes_class));
          const json::object* resources = nullptr;
          TP_TRY(object_part(*spec, "resources", sp, resources));
          if (resources) {
            const JsonPath rp = sp.field("resources");
            const json::object* requests = nullptr;
            TP_TRY(object_part(*resources, "requests", rp, requests));
            if (requests)
              TP_TRY(read_storage_in(*requests, "storage", rp.field("requests"), c.request));
          }
        }
        if (const std::string* beta = meta.annotation(kBetaStorageClass)) {
          c.class_name = *beta;
        } else if (class_name) {
          c.class_name = *class_name;
        } else {
          c.class_unset = true;
        }
        std::string phase;
        TP_TRY(read_phase(o, path, phase));
        c.lost = phase == "Lost";
        return std::nullopt;
      });
}

// Longer than .clang-tidy allows: a decoder, a branch per field.
// NOLINTNEXTLINE(readability-function-size)
Result<PersistentVolume> decode_persistent_volume(const json::value& v, const JsonPath& path) {
  return decode_with<PersistentVolume>(
      v, path, [&](const json::object& o, PersistentVolume& pv) -> Fail {
        Meta meta;
        TP_TRY(read_storage_meta(o, path, false, meta));
        pv.name = std::move(meta.name);
        pv.labels = std::move(meta.labels);
        pv.deleting = meta.deleting;
        const JsonPath sp = path.field("spec");
        const json::object* spec = nullptr;
        TP_TRY(object_part(o, "spec", path, spec));
        if (spec) {
          TP_TRY(read_string(*spec, "storageClassName", sp, pv.class_name));
          TP_TRY(read_access_modes(*spec, sp, pv.access_modes));
          TP_TRY(read_volume_mode(*spec, sp, pv.block));
          TP_TRY(read_string(*spec, "volumeAttributesClassName", sp, pv.attributes_class));
          const json::object* capacity = nullptr;
          TP_TRY(object_part(*spec, "capacity", sp, capacity));
          if (capacity) {
            std::optional<int64_t> amount;
            TP_TRY(read_storage_in(*capacity, "storage", sp.field("capacity"), amount));
            pv.capacity = amount.value_or(0);
          }
          const json::object* ref = nullptr;
          TP_TRY(object_part(*spec, "claimRef", sp, ref));
          if (ref) {
            const JsonPath rp = sp.field("claimRef");
            ClaimReference& r = pv.claim_ref.emplace();
            TP_TRY(read_string(*ref, "namespace", rp, r.ns));
            TP_TRY(read_string(*ref, "name", rp, r.name));
            TP_TRY(read_string(*ref, "uid", rp, r.uid));
          }
          const json::object* affinity = nullptr;
          TP_TRY(object_part(*spec, "nodeAffinity", sp, affinity));
          if (affinity) {
            const JsonPath ap = sp.field("nodeAffinity");
            const json::object* required = nullptr;
            TP_TRY(object_part(*affinity, "required", ap, required));
            if (required) {
              const JsonPath rp = ap.field("required");
              const json::value* terms = member(*required, "nodeSelectorTerms");
              const json::array* a = nullptr;
              if (!terms)
                return value_error(rp.field("nodeSelectorTerms"),
                                   "required node affinity needs nodeSelectorTerms");
              TP_TRY(as_array(*terms, rp.field("nodeSelectorTerms"), a));
              if (a->empty())
                return value_error(rp.field("nodeSelectorTerms"),
                                   "must have at least one node selector term");
              auto& out = pv.node_affinity.emplace();
              const JsonPath lp = rp.field("nodeSelectorTerms");
              for (size_t i = 0; i < a->size(); ++i) {
                const JsonPath tp = lp.index(static_cast<int64_t>(i));
                NodeSelectorTerm term;
                TP_TRY(decode_detail::read_node_selector_term((*a)[i], tp, term));
                TP_TRY(decode_detail::validate_node_selector_term(term, tp));
                out.push_back(std::move(term));
              }
            }
          }
          const json::object* csi = nullptr;
          TP_TRY(object_part(*spec, "csi", sp, csi));
          if (csi) {
            TP_TRY(read_string(*csi, "driver", sp.field("csi"), pv.csi_driver));
            TP_TRY(read_string(*csi, "volumeHandle", sp.field("csi"), pv.csi_handle));
          }
          for (const auto& [key, plugin] : kInTreeSources) {
            const json::value* s = member(*spec, key);
            if (s && !s->is_null()) pv.in_tree_plugin = std::string(plugin);
          }
        }
        if (const std::string* beta = meta.annotation(kBetaStorageClass)) pv.class_name = *beta;
        return read_phase(o, path, pv.phase);
      });
}

// Longer than .clang-tidy allows: a decoder, a branch per field.
// NOLINTNEXTLINE(readability-function-size)
Result<StorageClass> decode_storage_class(const json::value& v, const JsonPath& path) {
  return decode_with<StorageClass>(v, path, [&](const json::object& o, StorageClass& sc) -> Fail {
    Meta meta;
    TP_TRY(read_storage_meta(o, path, false, meta));
    sc.name = std::move(meta.name);
    for (const char* key : {"storageclass.kubernetes.io/is-default-class",
                            "storageclass.beta.kubernetes.io/is-default-class"}) {
      const std::string* v = meta.annotation(key);
      sc.is_default = sc.is_default || (v && *v == "true");
    }
    if (!meta.created.empty()) {
      auto seconds = rfc3339_seconds(meta.created);
      if (!seconds) {
        const JsonPath mp = path.field("metadata");
        return value_error(mp.field("creationTimestamp"),
                           quote_value(meta.created) + " is not an RFC 3339 time");
      }
      sc.created = *seconds;
    }
    TP_TRY(read_string(o, "provisioner", path, sc.provisioner));
    if (sc.provisioner.empty())
      return value_error(path.field("provisioner"), "a StorageClass needs a provisioner");
    std::optional<std::string> mode;
    TP_TRY(read_optional_string(o, "volumeBindingMode", path, mode));
    if (mode && *mode == "WaitForFirstConsumer") {
      sc.wait_for_first_consumer = true;
    } else if (mode && *mode != "Immediate") {
      return value_error(
          path.field("volumeBindingMode"),
          "unsupported binding mode " + quote_value(*mode) + " (Immediate, WaitForFirstConsumer)");
    }
    const json::value* topologies = member(o, "allowedTopologies");
    if (topologies && !topologies->is_null()) {
      const JsonPath tp = path.field("allowedTopologies");
      const json::array* a = nullptr;
      TP_TRY(as_array(*topologies, tp, a));
      for (size_t i = 0; i < a->size(); ++i) {
        const JsonPath ip = tp.index(static_cast<int64_t>(i));
        const json::object* term = nullptr;
        TP_TRY(as_object((*a)[i], ip, term));
        TopologySelectorTerm& t = sc.allowed_topologies.emplace_back();
        const json::value* exprs = member(*term, "matchLabelExpressions");
        if (!exprs || exprs->is_null()) continue;
        const json::array* ea = nullptr;
        TP_TRY(as_array(*exprs, ip.field("matchLabelExpressions"), ea));
        const JsonPath lp = ip.field("matchLabelExpressions");
        for (size_t j = 0; j < ea->size(); ++j) {
          const JsonPath ep = lp.index(static_cast<int64_t>(j));
          const json::object* e = nullptr;
          TP_TRY(as_object((*ea)[j], ep, e));
          auto& [key, values] = t.match_label_expressions.emplace_back();
          TP_TRY(read_string(*e, "key", ep, key));
          TP_TRY(read_string_list(*e, "values", ep, values));
          if (values.empty())
            return value_error(ep.field("values"), "must have at least one value");
        }
      }
    }
    return std::nullopt;
  });
}

Result<CsiNode> decode_csi_node(const json::value& v, const JsonPath& path) {
  return decode_with<CsiNode>(v, path, [&](const json::object& o, CsiNode& n) -> Fail {
    Meta meta;
    TP_TRY(read_storage_meta(o, path, false, meta));
    n.name = std::move(meta.name);
    if (const std::string* migrated = meta.annotation(kMigratedPlugins)) {
      std::string_view rest = *migrated;
      while (!rest.empty()) {
        const size_t comma = rest.find(',');
        std::string_view item = rest.substr(0, comma);
        if (!item.empty()) n.migrated_plugins.emplace_back(item);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    }
    const json::object* spec = nullptr;
    TP_TRY(object_part(o, "spec", path, spec));
    if (!spec) return std::nullopt;
    const JsonPath sp = path.field("spec");
    const json::value* drivers = member(*spec, "drivers");
    if (!drivers || drivers->is_null()) return std::nullopt;
    const json::array* a = nullptr;
    TP_TRY(as_array(*drivers, sp.field("drivers"), a));
    const JsonPath lp = sp.field("drivers");
    for (size_t i = 0; i < a->size(); ++i) {
      const JsonPath dp = lp.index(static_cast<int64_t>(i));
      const json::object* d = nullptr;
      TP_TRY(as_object((*a)[i], dp, d));
      CsiNode::Driver& driver = n.drivers.emplace_back();
      TP_TRY(read_string(*d, "name", dp, driver.name));
      if (driver.name.empty())
        return value_error(dp.field("name"), "a CSINode driver needs a name");
      const json::object* allocatable = nullptr;
      TP_TRY(object_part(*d, "allocatable", dp, allocatable));
      if (allocatable && member(*allocatable, "count") &&
          !member(*allocatable, "count")->is_null()) {
        int32_t count = 0;
        TP_TRY(read_int(*allocatable, "count", dp.field("allocatable"), count));
        if (count < 0) {
          const JsonPath ap = dp.field("allocatable");
          return value_error(ap.field("count"), "count " + std::to_string(count) +
                                                    " must be greater than or equal to 0");
        }
        driver.count = count;
      }
    }
    return std::nullopt;
  });
}

Result<CsiDriver> decode_csi_driver(const json::value& v, const JsonPath& path) {
  return decode_with<CsiDriver>(v, path, [&](const json::object& o, CsiDriver& d) -> Fail {
    Meta meta;
    TP_TRY(read_storage_meta(o, path, false, meta));
    d.name = std::move(meta.name);
    const json::object* spec = nullptr;
    TP_TRY(object_part(o, "spec", path, spec));
    if (spec && member(*spec, "storageCapacity") && !member(*spec, "storageCapacity")->is_null()) {
      TP_TRY(read_bool(*spec, "storageCapacity", path.field("spec"), d.storage_capacity));
    }
    if (spec && member(*spec, "preventPodSchedulingIfMissing") &&
        !member(*spec, "preventPodSchedulingIfMissing")->is_null()) {
      TP_TRY(read_bool(*spec, "preventPodSchedulingIfMissing", path.field("spec"),
                       d.prevent_if_missing));
    }
    return std::nullopt;
  });
}

Result<CsiStorageCapacity> decode_csi_storage_capacity(const json::value& v, const JsonPath& path) {
  return decode_with<CsiStorageCapacity>(
      v, path, [&](const json::object& o, CsiStorageCapacity& c) -> Fail {
        Meta meta;
        TP_TRY(read_storage_meta(o, path, true, meta));
        c.ns = std::move(meta.ns);
        c.name = std::move(meta.name);
        TP_TRY(read_string(o, "storageClassName", path, c.class_name));
        if (c.class_name.empty()) {
          return value_error(path.field("storageClassName"),
                             "a CSIStorageCapacity needs a storageClassName");
        }
        TP_TRY(read_selector(o, "nodeTopology", path, c.node_topology));
        TP_TRY(read_storage_in(o, "capacity", path, c.capacity));
        TP_TRY(read_storage_in(o, "maximumVolumeSize", path, c.maximum_volume_size));
        return std::nullopt;
      });
}

}  // namespace tightpack
