//! Prints the host's TypeScript module of the ABI constants
//! (src/solver/abi-constants.generated.ts; see route_solver::abi).
#![deny(unsafe_code)]

fn main() {
    print!("{}", route_solver::abi::typescript());
}
