#!/usr/bin/env python3
"""OR-Tools adapter of bench:compare: ortools_solve.py INPUT.json OUTPUT.json

INPUT: {"size", "hasEnd", "durations" (row-major size*size), "serviceS", "deadlineS" (-2147483648 = none, as NO_DEADLINE of ABI 4;
        a negative deadline is already past: counted from 0, as our search does),
        "seed", "budgetMs"}; node 0 = start, 1..n = stops, size-1 = end when hasEnd.
OUTPUT: {"order": [0-based stop indices]}.

One vehicle, arc cost = travel seconds; a time dimension (travel + service of the
origin) with a soft upper bound at each deadline whose penalty per late second
exceeds any possible duration, so lateness comes first as in our solver.
Guided local search for the budget. OR-Tools has no seed parameter for this
search: the seed is ignored (the runs are deterministic up to the time limit).
"""
import json
import sys

from ortools.constraint_solver import pywrapcp, routing_enums_pb2

NO_DEADLINE = -(2**31)  # ABI 4: no deadline (src/solver/abi-constants.generated.ts)


def main():
    with open(sys.argv[1]) as f:
        p = json.load(f)
    m = p["size"]
    has_end = p["hasEnd"]
    d = p["durations"]
    n = m - 1 - (1 if has_end else 0)
    service = p["serviceS"]
    deadline = p["deadlineS"]
    # open route: add a free virtual end node
    nodes = m if has_end else m + 1
    end = nodes - 1

    def travel(i, j):
        if not has_end and (i == end or j == end):
            return 0
        return d[i * m + j]

    manager = pywrapcp.RoutingIndexManager(nodes, 1, [0], [end])
    routing = pywrapcp.RoutingModel(manager)

    def arc(a, b):
        return travel(manager.IndexToNode(a), manager.IndexToNode(b))

    def transit(a, b):
        i = manager.IndexToNode(a)
        return (service[i - 1] if 1 <= i <= n else 0) + travel(i, manager.IndexToNode(b))

    arc_cb = routing.RegisterTransitCallback(arc)
    routing.SetArcCostEvaluatorOfAllVehicles(arc_cb)
    horizon = sum(max(d[i * m:(i + 1) * m]) for i in range(m)) + sum(service) + 1
    time_cb = routing.RegisterTransitCallback(transit)
    routing.AddDimension(time_cb, 0, horizon, True, "time")
    time = routing.GetDimensionOrDie("time")
    penalty = horizon + 1
    for s in range(n):
        if deadline[s] != NO_DEADLINE:
            time.SetCumulVarSoftUpperBound(manager.NodeToIndex(s + 1), max(deadline[s], 0), penalty)

    params = pywrapcp.DefaultRoutingSearchParameters()
    params.first_solution_strategy = routing_enums_pb2.FirstSolutionStrategy.PATH_CHEAPEST_ARC
    params.local_search_metaheuristic = routing_enums_pb2.LocalSearchMetaheuristic.GUIDED_LOCAL_SEARCH
    budget_ms = max(1, int(p["budgetMs"]))
    params.time_limit.seconds = budget_ms // 1000
    params.time_limit.nanos = (budget_ms % 1000) * 1_000_000
    solution = routing.SolveWithParameters(params)
    if solution is None:
        print("ortools found no solution", file=sys.stderr)
        sys.exit(1)
    order = []
    index = routing.Start(0)
    while not routing.IsEnd(index):
        node = manager.IndexToNode(index)
        if 1 <= node <= n:
            order.append(node - 1)
        index = solution.Value(routing.NextVar(index))
    with open(sys.argv[2], "w") as f:
        json.dump({"order": order}, f)


if __name__ == "__main__":
    main()
