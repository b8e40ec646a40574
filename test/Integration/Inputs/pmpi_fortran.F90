! An unmodified Fortran program (use mpi; use mpi_f08 with -DF08) calling
! what real codes call:
! alltoall, allreduce (also in place), bcast, allgatherv, barrier, and
! nonblocking alltoalls and allreduces completed by every completion routine
! (wait, test, testall, waitall, waitany, testany, request_get_status).
! Every rank checks every value
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
  integer :: ierr, rank, nprocs, i, j, k, n, bad, idx, done
  logical :: flag
  integer(kind=8) :: vsum(4)
  character(len=24), parameter :: ways(6) = [character(len=24) :: &
      'testall', 'waitany', 'testany', 'waitall', 'test', &
      'request_get_status']
  integer, allocatable :: sendb(:), recvb(:), counts(:), displs(:)
  integer(kind=8), allocatable :: sums(:), want8(:)
  double precision :: vals(5)
#ifdef F08
  type(MPI_Request) :: req, reqs(2)
  type(MPI_Status) :: status, sts(2)
#else
  integer :: req, reqs(2)
  integer :: status(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2)
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

  ! an ialltoall and an in-place iallreduce at once, completed each way
  do k = 1, 6
    recvb = -1
    vsum = int(rank + 1, 8)
    call mpi_ialltoall(sendb, n, MPI_INTEGER, recvb, n, MPI_INTEGER, &
                       MPI_COMM_WORLD, reqs(1), ierr)
    call mpi_iallreduce(MPI_IN_PLACE, vsum, 4, MPI_INTEGER8, MPI_SUM, &
                        MPI_COMM_WORLD, reqs(2), ierr)
    select case (k)
    case (1)
      flag = .false.
      do while (.not. flag)
        call mpi_testall(2, reqs, flag, sts, ierr)
      end do
    case (2)
      call mpi_waitany(2, reqs, idx, status, ierr)
      j = idx
      call mpi_waitany(2, reqs, idx, status, ierr)
      if (j + idx /= 3) bad = bad + 1
    case (3)
      done = 0
      do while (done < 2)
        call mpi_testany(2, reqs, idx, flag, status, ierr)
        if (flag .and. idx /= MPI_UNDEFINED) done = done + 1
      end do
    case (4)
      call mpi_waitall(2, reqs, sts, ierr)
    case (5)
      do i = 1, 2
        flag = .false.
        do while (.not. flag)
          call mpi_test(reqs(i), flag, status, ierr)
        end do
      end do
    case (6)
      do i = 1, 2
        flag = .false.
        do while (.not. flag)
          call mpi_request_get_status(reqs(i), flag, status, ierr)
        end do
        call mpi_wait(reqs(i), status, ierr)
      end do
    end select
    do j = 0, nprocs - 1
      do i = 1, n
        if (recvb(j * n + i) /= j * 1000 + rank * 10 + i) bad = bad + 1
      end do
    end do
    bad = bad + count(vsum /= int(nprocs * (nprocs + 1) / 2, 8))
    do i = 1, 2
      if (reqs(i) /= MPI_REQUEST_NULL) bad = bad + 1
    end do
    call report(trim(ways(k)), bad)
  end do

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
