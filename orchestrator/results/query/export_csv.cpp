#include "orchestrator/results/query/export_csv.hpp"

#include <filesystem>
#include <fstream>

#include "orchestrator/results/query/query.hpp"

namespace scalestudy::results {
namespace {

// A summary value of rank 0, or a provenance value of rank 0, as a column.
std::string summary_column(const std::string& name, const std::string& as) {
  return "(SELECT value FROM m_summary WHERE run_id = r.run_id AND rank = 0 AND name = '" + name +
         "') AS " + as;
}
std::string provenance_column(const std::string& key, const std::string& as) {
  return "(SELECT value FROM m_provenance WHERE run_id = r.run_id AND rank = 0 AND key = '" + key +
         "') AS " + as;
}

const std::string kScaleColumns =
    "r.job_id AS job_id, r.run_id AS run_id, r.repeat AS repeat, r.nodes AS nodes, "
    "CASE WHEN r.gpus_per_node > 0 THEN r.world_size ELSE 0 END AS gpus, r.world_size AS ranks, "
    "r.global_batch AS global_batch, r.per_gpu_batch AS per_gpu_batch, r.varied_json AS config";

std::string runs_sql() {
  return "SELECT " + kScaleColumns + ", r.state AS state, " +
         summary_column("samples_per_s", "throughput_samples_per_s") + ", " +
         "(SELECT avg(epoch_s) FROM m_epochs WHERE run_id = r.run_id AND rank = 0) AS "
         "time_per_epoch_s, " +
         summary_column("step_ms_median", "step_ms_median") + ", " +
         summary_column("final_val_acc", "final_val_acc") + ", " +
         summary_column("final_val_loss", "final_val_loss") + ", " +
         "(SELECT count(*) FROM m_epochs WHERE run_id = r.run_id AND rank = 0) AS epochs, " +
         "(SELECT max(value) FROM m_summary WHERE run_id = r.run_id AND name = "
         "'gpu_mem_peak_bytes') AS gpu_mem_peak_bytes, "
         "(SELECT max(value) FROM m_summary WHERE run_id = r.run_id AND name = "
         "'cpu_rss_peak_bytes') AS cpu_rss_peak_bytes, " +
         provenance_column("git_commit", "git_commit") + ", " +
         provenance_column("git_dirty", "git_dirty") + ", " +
         provenance_column("hostname", "hostname") + ", " +
         provenance_column("slurm_job_id", "slurm_job_id") + ", " +
         "r.reason AS reason FROM runs r WHERE r.profiled = 0 ORDER BY r.rowid";
}

std::string epochs_sql() {
  return "SELECT " + kScaleColumns +
         ", e.epoch AS epoch, e.lr AS lr, e.train_loss AS train_loss, e.train_acc AS train_acc, "
         "e.val_loss AS val_loss, e.val_acc AS val_acc, e.samples_per_s AS samples_per_s, "
         "e.epoch_s AS epoch_s, " +
         provenance_column("git_commit", "git_commit") +
         " FROM runs r JOIN m_epochs e ON e.run_id = r.run_id AND e.rank = 0 "
         "ORDER BY r.rowid, e.epoch";
}

}  // namespace

Result<std::vector<std::string>> export_csv(const std::string& study_db_path,
                                            const std::string& output_dir) {
  std::error_code error;
  std::filesystem::create_directories(output_dir, error);
  if (error) return Status::error("cannot create " + output_dir + ": " + error.message());
  std::vector<std::string> files;
  for (const auto& [name, sql] : {std::pair<std::string, std::string>{"runs.csv", runs_sql()},
                                  {"epochs.csv", epochs_sql()}}) {
    auto result = run_read_only_query(study_db_path, sql);
    if (!result) return result.status().with_context("export " + name);
    const std::string path = (std::filesystem::path(output_dir) / name).string();
    std::ofstream file(path);
    file << render_table(query_table(*result), TableFormat::kCsv);
    file.close();
    if (!file) return Status::error("cannot write " + path);
    files.push_back(path);
  }
  return files;
}

}  // namespace scalestudy::results
