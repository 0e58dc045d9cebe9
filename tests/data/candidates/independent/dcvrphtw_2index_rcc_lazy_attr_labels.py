"""Distance-constrained VRP with hard time windows on a 2-index x = addVars(N, N) whose diagonal
is zeroed by rows. Capacity (and subtours) by rounded capacity inequalities over every customer
subset, enumerated upfront with itertools.combinations and flagged Lazy=1 (LazyConstraints=1, no
callback). Route length as cumulative distance labels (with a redundant valid bound
dist_j <= Dmax - d_j0), the closing leg checked on the arc back; service starts by big-M with
the return to the depot before it closes."""

import itertools
import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (7.05, 29.94), (80.32, 93.36), (88.8, 8.54), (48.62, 48.11), (15.61, 65.26), (84.03, 16.74)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [30.11, 30.11]
Q = 30.11
DEMAND = {1: 8.64, 2: 8.05, 3: 7.67, 4: 3.49, 5: 4.49, 6: 6.75}
WINDOW = {0: (0.0, 500.0), 1: (47.4, 96.95), 2: (130.04, 227.68), 3: (89.11, 156.97), 4: (17.83, 97.4), 5: (146.46, 205.2), 6: (37.58, 146.31)}
SERVICE = {0: 0.0, 1: 4.61, 2: 3.23, 3: 3.6, 4: 3.18, 5: 7.44, 6: 7.11}
MAX_DIST = 275.72
# @data-end



def build_model():
    dep = DEPOTS[0]
    cus = CUSTOMERS
    d = [[math.dist(COORDS[i], COORDS[j]) for j in range(N)] for i in range(N)]

    model = gp.Model("dcvrphtw")
    model.setParam("OutputFlag", 0)
    model.setParam("LazyConstraints", 1)
    model.setParam("MIPGap", 0)
    model.setParam("Presolve", 2)

    x = model.addVars(N, N, vtype=GRB.BINARY, name="x")
    travelled = model.addVars(cus, lb=0.0, name="travelled")
    T = model.addVars(cus, lb=0.0, name="T")

    model.setObjective(gp.quicksum(d[i][j] * x[i, j] for i in range(N) for j in range(N)), GRB.MINIMIZE)

    model.addConstrs((x[i, i] == 0 for i in range(N)), name="no_loop")
    model.addConstrs((x.sum(j, "*") == 1 for j in cus), name="out")
    model.addConstrs((x.sum("*", j) == 1 for j in cus), name="in")
    model.addConstr(x.sum(dep, "*") == x.sum("*", dep), name="depot_balance")
    model.addConstr(x.sum(dep, "*") <= K, name="fleet")

    for size in range(2, len(cus) + 1):
        for S in itertools.combinations(cus, size):
            r = 1
            # @omit capacity
            r = max(1, math.ceil(round(sum(DEMAND[i] for i in S) / Q, 9)))
            # @end capacity
            cut = model.addConstr(
                gp.quicksum(x[i, j] for i in S for j in S if i != j) <= len(S) - r, name=f"rcc{S}"
            )
            cut.Lazy = 1

    # route length labels
    Mdist = sum(max(row) for row in d)
    for j in cus:
        model.addConstr(travelled[j] >= d[dep][j], name=f"from_depot[{j}]")
        for i in cus:
            if i != j:
                model.addConstr(travelled[j] >= travelled[i] + d[i][j] - Mdist * (1 - x[i, j]), name=f"len[{i},{j}]")
        # @omit distance
        travelled[j].UB = MAX_DIST - d[j][dep]
        model.addConstr(travelled[j] + d[j][dep] <= MAX_DIST + Mdist * (1 - x[j, dep]), name=f"close[{j}]")
        # @end distance

    # service starts
    Mt = max(b for _, b in WINDOW.values()) + max(SERVICE.values()) + max(max(row) for row in d)
    for j in cus:
        model.addConstr(T[j] >= WINDOW[dep][0] + d[dep][j], name=f"t_first[{j}]")
        model.addConstr(T[j] >= WINDOW[j][0], name=f"t_open[{j}]")
        for i in cus:
            if i != j:
                model.addConstr(T[j] >= T[i] + SERVICE[i] + d[i][j] - Mt * (1 - x[i, j]), name=f"t[{i},{j}]")
        # @omit time_window
        model.addConstr(T[j] <= WINDOW[j][1], name=f"t_due[{j}]")
        model.addConstr(T[j] + SERVICE[j] + d[j][dep] <= WINDOW[dep][1] + Mt * (1 - x[j, dep]), name=f"t_back[{j}]")
        # @end time_window

    model.optimize()
    return model
