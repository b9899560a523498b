package mpi

import "github.com/hympi/hympi/internal/enginehook"

// The C ABI's and the tuner's entry points reach the engine (or a cgo
// backend: the methods are unexported under the same names in both builds)
// through internal/enginehook, so that they stay out of this package's API.
func init() {
	enginehook.Peek = (*Request).peek
	enginehook.TakeDone = (*Request).takeDone
	enginehook.CancelRecv = (*Request).cancelRecv
	enginehook.CancelSend = (*Request).cancelSend
	enginehook.TestallInto = testallInto
	enginehook.FastLaneState = (*Comm).fastLaneState
	enginehook.CollPlanArea = (*Comm).cplanArea
	enginehook.CollPlanRun = (*Comm).cplanRun
	enginehook.PersistPlan = (*Persistent).cplanCompile
	enginehook.PersistStartAt = (*Persistent).startAt
	enginehook.SendNow = (*Comm).sendNow
	enginehook.IsendIn = (*Comm).isendIn
	enginehook.IssendIn = (*Comm).issendIn
	enginehook.IrecvIn = (*Comm).irecvIn
	enginehook.MrecvIn = (*Message).irecvIn
	enginehook.NewJoin = newJoin
	enginehook.Follow = (*Request).follow
	enginehook.Release = (*Request).release
	enginehook.InterColl = (*Comm).interColl
	enginehook.IinterColl = (*Comm).iinterColl
	enginehook.InterCollInit = (*Comm).interCollInit
	enginehook.Calibrate = calibrate

	enginehook.WinDetachAddr = (*Win).detachAddr
	enginehook.WinSharedBase = (*Win).sharedBase
	enginehook.WinAccWordAddr = (*Win).accWordAddr
	enginehook.WinAccessMask = (*Win).accessMask
	enginehook.WinDoneRequest = (*Win).doneRequest
	enginehook.WinRing = (*Win).ring
	enginehook.WinPutSegs = (*Win).putSegs
	enginehook.WinGetSegs = (*Win).getSegs
	enginehook.WinGetAccumulateSegs = (*Win).getAccumulateSegs

	enginehook.SessionBufferAttach = sessionBufferAttach
	enginehook.SessionBufferDetach = sessionBufferDetach
	enginehook.SessionBufferIflush = sessionBufferIflush
	enginehook.SessionBufferForget = sessionBufferForget
}

// winSeg is a block of a non-contiguous target (enginehook.Seg): the type
// the C library builds, kept out of this package's API.
type winSeg = enginehook.Seg
