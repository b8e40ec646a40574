! An unmodified Fortran program (use mpi; use mpi_f08 with -DF08) calling
! what real codes call:
! alltoall, allreduce (also in place), bcast, allgatherv, barrier, and a
! nonblocking alltoall completed by mpi_wait. Every rank checks every value
! against what MPI defines and prints one line per check; exit code 1 on any
! wrong value. libphasec-pmpi must serve these calls (its report counts
! them as Fortran's) and give the same output.
program pmpi_fortran
#ifdef F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer :: ierr, rank, nprocs, i, j, n, bad
  integer, allocatable :: sendb(:), recvb(:), counts(:), displs(:)
  integer(kind=8), allocatable :: sums(:), want8(:)
  double precision :: vals(5)
#ifdef F08
  type(MPI_Request) :: req
  type(MPI_Status) :: status
#else
  integer :: req
  integer :: status(MPI_STATUS_SIZE)
#endif

  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
  n = 3
  bad = 0

  ! alltoall: block j of rank r holds r*1000 + j*10 + k
  allocate(sendb(n * nprocs), recvb(n * nprocs))
  do j = 0, nprocs - 1
    do i = 1, n
      sendb(j * n + i) = rank * 1000 + j * 10 + i
    end do
  end do
  call mpi_alltoall(sendb, n, MPI_INTEGER, recvb, n, MPI_INTEGER, &
                    MPI_COMM_WORLD, ierr)
  do j = 0, nprocs - 1
    do i = 1, n
      if (recvb(j * n + i) /= j * 1000 + rank * 10 + i) bad = bad + 1
    end do
  end do
  call report('alltoall', bad)

  ! nonblocking alltoall, waited for
  recvb = -1
  call mpi_ialltoall(sendb, n, MPI_INTEGER, recvb, n, MPI_INTEGER, &
                     MPI_COMM_WORLD, req, ierr)
  call mpi_wait(req, status, ierr)
  do j = 0, nprocs - 1
    do i = 1, n
      if (recvb(j * n + i) /= j * 1000 + rank * 10 + i) bad = bad + 1
    end do
  end do
  if (req /= MPI_REQUEST_NULL) bad = bad + 1
  call report('ialltoall', bad)

  ! allreduce of 8-byte integers, then in place
  allocate(sums(4), want8(4))
  do i = 1, 4
    sums(i) = int(rank + i, 8)
    want8(i) = int(nprocs * i + nprocs * (nprocs - 1) / 2, 8)
  end do
  call mpi_allreduce(MPI_IN_PLACE, sums, 4, MPI_INTEGER8, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  bad = bad + count(sums /= want8)
  call report('allreduce in place', bad)
  vals = dble(rank + 1)
  call mpi_allreduce(MPI_IN_PLACE, vals, 5, MPI_DOUBLE_PRECISION, MPI_MAX, &
                     MPI_COMM_WORLD, ierr)
  bad = bad + count(vals(1:5) /= dble(nprocs))
  call report('allreduce max', bad)

  ! bcast from the last rank
  recvb = rank
  call mpi_bcast(recvb, n * nprocs, MPI_INTEGER, nprocs - 1, &
                 MPI_COMM_WORLD, ierr)
  do i = 1, n * nprocs
    if (recvb(i) /= nprocs - 1) bad = bad + 1
  end do
  call report('bcast', bad)

  ! allgatherv: rank j contributes j + 1 values j*100 + k, in reverse order
  allocate(counts(nprocs), displs(nprocs))
  deallocate(recvb)
  allocate(recvb(nprocs * (nprocs + 1) / 2))
  j = 0
  do i = nprocs, 1, -1
    counts(i) = i
    displs(i) = j
    j = j + i
  end do
  do i = 1, rank + 1
    sendb(i) = rank * 100 + i
  end do
  call mpi_allgatherv(sendb, rank + 1, MPI_INTEGER, recvb, counts, displs, &
                      MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do j = 0, nprocs - 1
    do i = 1, j + 1
      if (recvb(displs(j + 1) + i) /= j * 100 + i) bad = bad + 1
    end do
  end do
  call report('allgatherv', bad)

#ifdef F08
  ! mpi_f08's ierror is optional: absent here.
  call mpi_barrier(MPI_COMM_WORLD)
#else
  call mpi_barrier(MPI_COMM_WORLD, ierr)
#endif
  call report('barrier', bad)

  call mpi_finalize(ierr)
  if (bad /= 0) call exit(1)

contains

  subroutine report(what, wrong)
    character(len=*), intent(in) :: what
    integer, intent(in) :: wrong
    if (rank == 0) then
      if (wrong == 0) then
        print '(a, a)', what, ': ok'
      else
        print '(a, a, i0)', what, ': WRONG ', wrong
      end if
    end if
  end subroutine report
end program pmpi_fortran
