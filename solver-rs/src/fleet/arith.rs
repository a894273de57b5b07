//! Saturating products for the cost's weights.
//!
//! `i64::saturating_mul` needs the multiply's overflow flag. x86-64 has one; WebAssembly
//! has not, and LLVM lowers the check there to a call of `__multi3` (a 128-bit multiply
//! through the stack) on every weighted term of every route's cost.

/// `w.saturating_mul(x)`, with a plain multiply when the product cannot overflow: |w| below
/// 2^a and |x| below 2^b with a + b ≤ 63 give |w · x| < 2^63.
#[inline(always)]
pub fn saturating_product(w: i64, x: i64) -> i64 {
    if w.unsigned_abs().leading_zeros() + x.unsigned_abs().leading_zeros() >= 65 {
        w * x
    } else {
        w.saturating_mul(x)
    }
}

#[cfg(test)]
mod tests {
    use super::saturating_product;
    use crate::rng::Rng;

    #[test]
    fn equals_the_saturating_product_everywhere() {
        let edges = [
            0,
            1,
            -1,
            2,
            3,
            1 << 31,
            (1 << 31) - 1,
            1 << 32,
            (1 << 62) - 1,
            1 << 62,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
            1_000_000_000_000_000_000,
        ];
        let mut values: Vec<i64> = edges
            .iter()
            .flat_map(|&e: &i64| [e, e.wrapping_neg()])
            .collect();
        let mut rng = Rng::new(5);
        for _ in 0..1000 {
            let bits = rng.range(0, 63) as u32;
            let x = (rng.next_u64() >> (63 - bits)) as i64;
            values.push(x);
            values.push(-x);
        }
        for &w in &values {
            for &x in &values {
                assert_eq!(saturating_product(w, x), w.saturating_mul(x), "{w} × {x}");
            }
        }
    }
}
