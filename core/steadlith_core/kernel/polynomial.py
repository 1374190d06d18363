"""Arithmetic on GF(2) polynomials held in Python ints: degree, products, remainders and
Rabin's irreducibility test. Pure Python, without numpy, so that checking a parameter
set's polynomial (`steadlith params`) does not load the numpy paths of `rabin`.
"""

from __future__ import annotations


def degree(p: int) -> int:
    return p.bit_length() - 1


def clmul(a: int, b: int) -> int:
    """Carry-less product of two polynomials."""
    result = 0
    while b:
        low = b & -b
        result ^= a << (low.bit_length() - 1)
        b ^= low
    return result


def polymod(a: int, p: int) -> int:
    d = degree(p)
    while a.bit_length() - 1 >= d:
        a ^= p << (a.bit_length() - 1 - d)
    return a


def mulmod(a: int, b: int, p: int) -> int:
    return polymod(clmul(a, b), p)


def powmod_x(e: int, p: int) -> int:
    """x^e mod p, by square-and-multiply."""
    result, base = 1, polymod(2, p)
    while e:
        if e & 1:
            result = mulmod(result, base, p)
        base = mulmod(base, base, p)
        e >>= 1
    return result


def _polygcd(a: int, b: int) -> int:
    while b:
        while a and a.bit_length() >= b.bit_length():
            a ^= b << (a.bit_length() - b.bit_length())
        a, b = b, a
    return a


def _prime_factors(n: int) -> list[int]:
    out, f = [], 2
    while f * f <= n:
        if n % f == 0:
            out.append(f)
            while n % f == 0:
                n //= f
        f += 1
    if n > 1:
        out.append(n)
    return out


def is_irreducible(p: int) -> bool:
    """Rabin's test: x^(2^d) = x mod p, and gcd(x^(2^(d/q)) - x, p) = 1 for primes q | d."""
    d = degree(p)
    if d < 1:
        return False
    if d == 1:
        return True

    def x_pow_2k(k: int) -> int:  # x^(2^k) mod p by k squarings
        r = polymod(2, p)
        for _ in range(k):
            r = mulmod(r, r, p)
        return r

    if x_pow_2k(d) != polymod(2, p):
        return False
    for q in _prime_factors(d):
        if _polygcd(p, x_pow_2k(d // q) ^ 2) != 1:
            return False
    return True
