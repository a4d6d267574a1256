# Writes each fenced block of a doc/*.md that is a profile (comments, empty
# lines and KEY=VALUE lines, at least one of them NCCL_; a "..." line, which
# elides, is left out) to DIR/BASE-N.env: tests/releases.bats checks them
# under every NCCL release.
/^```/ {
    if (inb && ok && has) {
        n++
        f = sprintf("%s/%s-%d.env", dir, base, n)
        printf "%s", buf > f
        close(f)
    }
    inb = !inb; buf = ""; ok = 1; has = 0
    next
}
inb && $0 == "..." { next }
inb {
    buf = buf $0 "\n"
    if ($0 ~ /^NCCL_[A-Z0-9_]*=/) has = 1
    else if ($0 !~ /^(#.*|[A-Z_][A-Z0-9_]*=.*|)$/) ok = 0
}
