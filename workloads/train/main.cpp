// scalestudy-train: data-parallel training of an image classifier. The driver owns flags,
// ranks, communication, timing and the run record; this binary only names its task.
#include "harness/train/driver.hpp"
#include "harness/train/training_workload.hpp"
#include "workloads/train/image_classification_task.hpp"

int main(int argc, char** argv) {
  scalestudy::workloads::ImageClassificationTask task;
  scalestudy::train::TrainingWorkload workload("train", task);
  return scalestudy::train::run_workload(argc, argv, workload);
}
