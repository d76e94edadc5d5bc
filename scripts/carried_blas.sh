# Sourced by lapack_bench.sh and lu_panels_bench.sh (from the repository root, with $work a
# scratch folder): unpacks the carried Debian packages of .openblas/ and sets
#   carried    the carried OpenBLAS (libopenblas.so.0)
#   reflapack  the folder of the carried reference LAPACK (liblapack.so.3)
#   system     the machine's own OpenBLAS, if it has one
#   cpu        the CPU BLAS of the ptxblas runs: the machine's OpenBLAS, else the carried one
dpkg -x .openblas/libopenblas0-pthread_*.deb "$work/openblas"
dpkg -x .openblas/liblapack3_*.deb "$work/lapack"
carried=$(find "$work/openblas" -name 'libopenblas.so.0' | head -n 1)
reflapack=$(dirname "$(find "$work/lapack" -name 'liblapack.so.3' | head -n 1)")
system=$(/sbin/ldconfig -p | awk '/libopenblas\.so\.0 / {print $NF; exit}')
cpu=${system:-$carried}
