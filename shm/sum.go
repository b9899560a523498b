package shm

import (
	"encoding/binary"
	"hash/crc32"
)

// Payload checksums (HYMPI_CHECKSUM=1). The ring protocol validates every
// field that indexes memory, but a payload is just bytes: a stray write into
// a cell or a slot is delivered as data. When a job asks for it, the sender
// stores a CRC-32C of each eager payload next to it and the receiver checks
// it, so such a write becomes an error. CRC-32C is computed by a dedicated
// instruction on amd64 and arm64, several GB/s per core.
//
// Where the sum lives: in a descriptor slot, the four bytes after the cell
// index (KindInline, KindControl, KindFirst and KindNext never use them; the
// extension line holds an address only for KindRTS and KindNack); in a
// collective slot, the reserved word, which is zero when the job does not
// checksum. Both sides of a job agree on the setting (every rank inherits the
// launcher's environment), so nothing in the slot says whether a sum is
// present, and a job that does not checksum never touches these bytes.
const descSum = descExt + 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// PayloadSum is the checksum of a payload alone (CRC-32C).
func PayloadSum(p []byte) uint32 { return crc32.Checksum(p, castagnoli) }

// MessageSum is the checksum a descriptor carries: its payload and the
// envelope fields that decide where the payload goes, so that a stray write
// that re-addresses a message (another tag, context, length or cell) is
// caught as surely as one that changes its bytes.
func MessageSum(d *Desc, payload []byte) uint32 {
	var env [32]byte
	le := binary.LittleEndian
	env[0], env[1] = byte(d.Kind), d.Flags
	le.PutUint32(env[4:], d.Ctx)
	le.PutUint32(env[8:], uint32(d.Tag))
	le.PutUint32(env[12:], d.FragLen)
	le.PutUint32(env[16:], d.Cell)
	le.PutUint64(env[20:], d.MsgLen)
	if d.Flags&FlagSync != 0 || d.Flags&FlagResend != 0 || d.Kind == KindFirst || d.Kind == KindNext {
		le.PutUint32(env[28:], uint32(d.ReqID))
	}
	return crc32.Update(crc32.Checksum(env[:], castagnoli), castagnoli, payload)
}

// CollSumOf is the checksum a collective slot carries: envelope and payload.
func CollSumOf(d CollDesc, payload []byte) uint32 {
	var env [12]byte
	le := binary.LittleEndian
	le.PutUint32(env[0:], d.Ctx)
	le.PutUint32(env[4:], uint32(d.Tag))
	le.PutUint32(env[8:], d.Len)
	return crc32.Update(crc32.Checksum(env[:], castagnoli), castagnoli, payload)
}

// SetDescSum stores sum in a descriptor slot before it is published.
func SetDescSum(slot []byte, sum uint32) { binary.LittleEndian.PutUint32(slot[descSum:], sum) }

// DescSum is the sum the sender stored in a published descriptor slot.
func DescSum(slot []byte) uint32 { return binary.LittleEndian.Uint32(slot[descSum:]) }

// SetCollSum stores sum in a collective slot after EncodeColl.
func SetCollSum(slot []byte, sum uint32) { binary.LittleEndian.PutUint32(slot[collRsvd:], sum) }

// CollSum is the sum the sender stored in a published collective slot.
func CollSum(slot []byte) uint32 { return binary.LittleEndian.Uint32(slot[collRsvd:]) }
