// `fabricsim plan`'s answer (docs/PLANNING.md): for each design (a variant, at each size asked
// with --gpus) its bill of materials, fabric figures and checks, cost and power, and the
// performance of the scenario's workload on it, side by side. Built by src/cli/plan_command.cpp;
// written as console text or JSON here (nothing here prints).
//
// Cost per unit of throughput:
//   training     price / (achieved FLOP/s of the whole cluster), in currency per PFLOP/s,
//                with the achieved FLOP/s = TFLOP/s per GPU (Megatron-LM's figure, training
//                result) x GPUs
//   collectives  price / busbw of the largest message (nccl-tests' bus bandwidth per rank), in
//                currency per GB/s
#pragma once

#include "fabric/topology_summary.hpp"
#include "report/bill_of_materials.hpp"
#include "report/fabric_checks.hpp"
#include "report/plan_cost.hpp"
#include "report/run_result.hpp"

#include <optional>
#include <string>
#include <vector>

namespace fabricsim::report {

struct PlanPerformance {
    bool ran = false;
    std::string note;   // why it did not run, or what is wrong with the run
    std::string model;  // "ideal", "packet"
    bool complete = false;
    Time makespan;
    // The first training entry.
    std::string training;
    Time iteration;
    double tflops_per_gpu = 0;
    // The largest message of the first collective entry.
    std::string collective;  // "allreduce 1GiB"
    Time collective_time;
    double busbw_GBps = 0;
};

PlanPerformance performance_of(const VariantResult& result);

struct PlanDesign {
    std::string variant;
    int gpus = 0;
    fabric::TopologySummary summary;
    BillOfMaterials bom;
    FabricChecks checks;
    PlanCost cost;
    PlanPerformance performance;
    std::optional<double> price_per_pflops() const;  // training
    std::optional<double> price_per_busbw() const;   // collectives, per GB/s
};

struct CapacityPlan {
    std::string scenario;
    std::string prices_file;
    std::vector<PlanDesign> designs;
};

std::string plan_text(const CapacityPlan& plan);
std::string plan_json(const CapacityPlan& plan);  // one JSON document, trailing newline

}  // namespace fabricsim::report
